/** A node taint, as in core/v1 Taint. */
export interface Taint {
  readonly key: string;
  readonly value?: string;
  readonly effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

/** A pod toleration, as in core/v1 Toleration. */
export interface Toleration {
  readonly key?: string;
  readonly operator?: 'Exists' | 'Equal';
  readonly value?: string;
  readonly effect?: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
  readonly tolerationSeconds?: number;
}
