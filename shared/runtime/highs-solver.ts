import type { LpSolution, LpSolver } from '../core/ports/lp-solver';

/** A loaded HiGHS module: `solve` of the `highs` package. */
interface HighsModule {
  solve(
    model: string,
    options?: Readonly<Record<string, number | boolean>>,
  ): {
    readonly Status: string;
    readonly ObjectiveValue: number;
    readonly Columns: Readonly<Record<string, { readonly Primal: number }>>;
    readonly Rows: readonly ({ readonly Dual: number } | Readonly<Record<string, unknown>>)[];
  };
}

let loading: Promise<LpSolver> | undefined;

/**
 * HiGHS (the `highs` package, WebAssembly) behind {@link LpSolver}. Loaded once per process on
 * first use, and only then: commands that never bound a cost never pay for compiling it.
 */
export function loadHighsSolver(): Promise<LpSolver> {
  loading ??= import('highs').then(async ({ default: load }) => {
    const highs = (await load()) as unknown as HighsModule;
    return {
      solve(model, options): LpSolution {
        const r = highs.solve(model, { output_flag: false, ...options });
        return {
          status: r.Status,
          objective: r.ObjectiveValue,
          columns: Object.fromEntries(Object.entries(r.Columns).map(([name, c]) => [name, c.Primal])),
          rowDuals: r.Rows.map((row) => (typeof row.Dual === 'number' ? row.Dual : 0)),
        };
      },
    };
  });
  return loading;
}
