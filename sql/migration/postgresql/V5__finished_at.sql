-- delay-task schema, version 5: when each task finished, and the history purge's index, partial so that an add
-- writes no entry into it.
ALTER TABLE taskinfo_logs ADD COLUMN finished_at BIGINT NULL;
CREATE INDEX idx_taskinfo_logs_finished ON taskinfo_logs (status, finished_at, execute_time) WHERE status <> 0;
