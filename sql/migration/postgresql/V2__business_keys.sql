-- delay-task schema, version 2: business keys, unique among live tasks; dead tasks listed by id.
ALTER TABLE taskinfo ADD COLUMN biz_key VARCHAR(191) NULL;
CREATE UNIQUE INDEX uk_taskinfo_biz_key ON taskinfo (biz_key);
ALTER TABLE taskinfo_logs ADD COLUMN biz_key VARCHAR(191) NULL;
DROP INDEX idx_taskinfo_logs_status;
CREATE INDEX idx_taskinfo_logs_status ON taskinfo_logs (status, task_id);
CREATE INDEX idx_taskinfo_logs_biz_key ON taskinfo_logs (biz_key);
