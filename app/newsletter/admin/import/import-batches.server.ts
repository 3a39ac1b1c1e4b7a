/**
 * The import's writes, a batch at a time: readers are gathered until a batch is full, then stored in one call to the
 * list (one transaction in the embedded list), and each answer counted. A long file is then neither a transaction per
 * row (slow) nor one for the whole file (its every row held until the end).
 */
import type { ImportPlan, PlannedReader } from "~/newsletter/admin/import/plan.server";
import type { WriteFailure } from "~/newsletter/admin/import/report.server";
import type { ImportSuppressionReason } from "~/newsletter/admin/import/status.server";

/**
 * Readers written at a time. Small enough that a batch (its readers, their consent records) dies in V8's young
 * generation: batches of 2,000 outlived it, and their garbage grew the old generation by 100 MiB over 200,000 rows.
 */
export const IMPORT_BATCH_ROWS = 250;

/** A reader to write: confirmed, or suppressed for `reason`. */
export interface PendingReader extends PlannedReader {
  reason: ImportSuppressionReason | null;
}

/**
 * A write's answer: true when the reader was stored (or, for a suppression, something changed), false when the
 * address was there already (someone signed up since the list was asked), or the error that kept this reader out.
 */
export type WriteAnswer = boolean | Error;

const asError = (error: unknown) => (error instanceof Error ? error : new Error(String(error)));

/** Batches between full collections, when the command exposes V8's collector (its npm script's --expose-gc). */
const BATCHES_PER_COLLECTION = 40;

/**
 * Each batch's garbage outlives the young generation and V8 lets the old one grow long before it collects: on a fast
 * machine a 200,000-row write grew the process by some 60 MiB of garbage. A full collection every 10,000 readers costs
 * a few milliseconds each and keeps the peak near the live set.
 */
const collectGarbage = (globalThis as { gc?: () => void }).gc;

export class ImportBatches {
  private pending: PendingReader[] = [];
  private written = 0;

  /**
   * @param store writes one batch and answers for each reader in order; a throw fails every reader of the batch.
   * @param plan counts what was written; @param failed names the readers that could not be.
   */
  constructor(
    private readonly store: (batch: readonly PendingReader[]) => Promise<WriteAnswer[]> | WriteAnswer[],
    private readonly plan: ImportPlan,
    private readonly failed: WriteFailure[],
    private readonly size = IMPORT_BATCH_ROWS,
  ) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`A batch holds at least one reader, not ${size}.`);
  }

  /** Adds a reader; the batch is written once it is full. */
  async add(reader: PendingReader): Promise<void> {
    this.pending.push(reader);
    if (this.pending.length >= this.size) await this.flush();
  }

  /** Writes what is gathered (the last, shorter batch). */
  async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    let answers: WriteAnswer[];
    try {
      answers = await this.store(batch);
    } catch (error) {
      answers = batch.map(() => asError(error));
    }
    batch.forEach((reader, i) => {
      const answer = answers[i] ?? new Error("the list gave no answer for this reader");
      if (answer instanceof Error) this.failed.push({ line: reader.line, email: reader.email, error: answer.message });
      else if (!answer) this.plan.alreadyOnList += 1;
      else if (reader.reason) this.plan.suppressed[reader.reason] += 1;
      else this.plan.added += 1;
    });
    this.written += 1;
    if (collectGarbage && this.written % BATCHES_PER_COLLECTION === 0) collectGarbage();
  }
}
