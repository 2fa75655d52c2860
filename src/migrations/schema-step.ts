// How the pass runs one dialect schema step (./migration-database.ts SchemaStep): its own
// transaction under the migration lock, deciding from the shape re-observed under that lock
// (another migrator may have done the work meanwhile), committing all of it or none.
import { awaited, type Flow } from './flow.js';
import { hostObjectScripts } from './host-objects.js';
import type { AppliedOrSkipped, MigrationDatabase, MigrationPrimitives, SchemaStep } from './migration-database.js';

function* applySchemaStep(db: MigrationPrimitives, step: SchemaStep): Flow<AppliedOrSkipped> {
  const shape = yield* awaited(db.observeShape());
  if (!step.needed(shape)) return 'skipped';
  const refusal = step.refusal?.(shape);
  if (refusal) throw new Error(refusal);
  const carried = step.carriesHostObjects ? hostObjectScripts(yield* awaited(db.readHostObjects())) : [];
  const scripts = typeof step.scripts === 'function' ? step.scripts(shape) : step.scripts;
  for (const script of [...scripts, ...carried]) yield* awaited(db.applySchema(script));
  // Verified before COMMIT: scripts that ran but did not bring the shape about (an unforeseen
  // shape) are rolled back rather than left half-applied (AC-33a).
  if (step.verify && step.needed(yield* awaited(db.observeShape()))) {
    throw new Error(`${step.name} ran but the shape it must bring about does not hold; rolled back`);
  }
  return 'applied';
}

export async function runSchemaStep(db: MigrationDatabase, step: SchemaStep): Promise<AppliedOrSkipped> {
  const transaction = () => db.locked((primitives) => applySchemaStep(primitives, step));
  if (!step.around) return transaction();
  if (!step.needed(await db.unlocked((primitives) => awaited(primitives.observeShape())))) return 'skipped';
  return step.around(transaction);
}
