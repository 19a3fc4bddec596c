// Every JSON document Taintlens writes names its kind and version, so readers can refuse what they
// do not understand instead of misreading it.
export type SchemaKind =
  | 'sites'
  | 'loops'
  | 'run'
  | 'taint'
  | 'models'
  | 'measurements'
  | 'fuzz'
  | 'bench'
  | 'experiment'
  | 'summary'
  | 'environment'
  | 'overhead'
  | 'report'
  | 'slurm-submit'
  | 'slurm-status'
  | 'slurm-collect'
  | 'slurm-task';

export const SCHEMA_VERSION = 1;

export function schemaId(kind: SchemaKind, version = SCHEMA_VERSION): string {
  return `taintlens/${kind}@${version}`;
}
