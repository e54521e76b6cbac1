-- delay-task schema, version 3: the business-key indexes hold only tasks that have a key, so that a keyless add
-- writes no entry into them. Built beside the old ones, so that the key is unique throughout (a migration tool runs
-- this in a transaction, where CONCURRENTLY is not allowed: by hand, on a busy table, use the README's statements).
CREATE UNIQUE INDEX uk_taskinfo_biz_key_new ON taskinfo (biz_key) WHERE biz_key IS NOT NULL;
DROP INDEX uk_taskinfo_biz_key;
ALTER INDEX uk_taskinfo_biz_key_new RENAME TO uk_taskinfo_biz_key;
CREATE INDEX idx_taskinfo_logs_biz_key_new ON taskinfo_logs (biz_key) WHERE biz_key IS NOT NULL;
DROP INDEX idx_taskinfo_logs_biz_key;
ALTER INDEX idx_taskinfo_logs_biz_key_new RENAME TO idx_taskinfo_logs_biz_key;
