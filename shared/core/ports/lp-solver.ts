/**
 * A linear and mixed-integer program solver (HiGHS in production: shared/runtime/highs-solver.ts),
 * as the configuration-LP bound (core/bound) needs one. Core builds the model as text and reads
 * the solution; the solver is synchronous once loaded, so the bound stays a plain function.
 */

/** The parts of a solution the bound reads. */
export interface LpSolution {
  /** `Optimal` when solved to optimality; anything else is a failure to the bound. */
  readonly status: string;
  readonly objective: number;
  /** Primal value of each column, by name. */
  readonly columns: Readonly<Record<string, number>>;
  /** Dual value of each constraint row, in the model's order (0 for a MIP). */
  readonly rowDuals: readonly number[];
}

/** Solves models written in CPLEX LP format (a MIP when it has a `Generals` section). */
export interface LpSolver {
  solve(model: string, options?: Readonly<Record<string, number | boolean>>): LpSolution;
}
