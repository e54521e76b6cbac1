-- delay-task schema, version 9: the locks of @DistributedLock when delay-task.lock.store is database.
CREATE TABLE taskinfo_lock (
    name            VARCHAR(255)  NOT NULL PRIMARY KEY,
    lock_until      BIGINT        NOT NULL,
    locked_at       BIGINT        NOT NULL,
    locked_by       VARCHAR(64)   NOT NULL,
    run_id          VARCHAR(64)   NULL,
    run_host        VARCHAR(255)  NULL,
    run_pid         BIGINT        NULL,
    run_started_at  BIGINT        NULL,
    run_finished_at BIGINT        NULL,
    run_duration_ms BIGINT        NULL,
    run_outcome     VARCHAR(16)   NULL,
    run_error       VARCHAR(1000) NULL
);
