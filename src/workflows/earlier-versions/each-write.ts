/**
 * Search attributes as runs recorded before one workflow task per step wrote them: every write its
 * own upsert command, at once (their replay needs the same commands).
 */
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { upsertSearchAttributes } from '@temporalio/workflow';
import type { SearchAttributes } from '../search-attribute-writer';

export class EachWriteSearchAttributes implements SearchAttributes {
  write(updates: readonly SearchAttributeUpdatePair[]): void {
    upsertSearchAttributes([...updates]);
  }

  flush(): void {}
}
