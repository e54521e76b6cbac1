-- delay-task schema, version 5: when each task finished, and the history purge's index; online: the column is
-- added at once (MySQL 8.0.12+, MariaDB 10.3+) and the index is built while writes go on.
ALTER TABLE taskinfo_logs ADD COLUMN finished_at BIGINT NULL
    COMMENT 'when it became executed, cancelled or dead, epoch ms by the database clock; NULL while live',
    ALGORITHM = INSTANT;
ALTER TABLE taskinfo_logs ADD INDEX idx_taskinfo_logs_finished (status, finished_at, execute_time),
    ALGORITHM = INPLACE, LOCK = NONE;
