-- delay-task schema, version 3: the business-key indexes hold only tasks that have a key, so that a keyless add
-- writes no entry into them. Both new indexes are built first, beside the old ones, so that the key stays unique and
-- the tables are locked only for the drops and renames at the end (a migration tool runs this in a transaction,
-- where CONCURRENTLY is not allowed: the builds still block writes to each table meanwhile; on a large live table,
-- use the README's statements by hand and mark this version applied).
CREATE UNIQUE INDEX uk_taskinfo_biz_key_new ON taskinfo (biz_key) WHERE biz_key IS NOT NULL;
CREATE INDEX idx_taskinfo_logs_biz_key_new ON taskinfo_logs (biz_key) WHERE biz_key IS NOT NULL;
DROP INDEX uk_taskinfo_biz_key;
ALTER INDEX uk_taskinfo_biz_key_new RENAME TO uk_taskinfo_biz_key;
DROP INDEX idx_taskinfo_logs_biz_key;
ALTER INDEX idx_taskinfo_logs_biz_key_new RENAME TO idx_taskinfo_logs_biz_key;
