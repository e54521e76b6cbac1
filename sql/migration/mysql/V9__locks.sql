-- delay-task schema, version 9: the locks of @DistributedLock when delay-task.lock.store is database.
CREATE TABLE taskinfo_lock (
    name            VARCHAR(255)  CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    lock_until      BIGINT        NOT NULL COMMENT 'when it lapses, epoch ms by the database clock; past when free',
    locked_at       BIGINT        NOT NULL COMMENT 'when its holder took it, epoch ms by the database clock',
    locked_by       VARCHAR(64)   NOT NULL COMMENT 'random token of the holder',
    run_id          VARCHAR(64)   NULL COMMENT 'latest run of the locked job',
    run_host        VARCHAR(255)  NULL COMMENT 'host of the instance that ran it',
    run_pid         BIGINT        NULL COMMENT 'process id of the instance that ran it',
    run_started_at  BIGINT        NULL COMMENT 'when it started, epoch ms by its instance clock',
    run_finished_at BIGINT        NULL COMMENT 'when it ended, epoch ms; NULL while it runs',
    run_duration_ms BIGINT        NULL COMMENT 'how long it took, ms; NULL while it runs',
    run_outcome     VARCHAR(16)   NULL COMMENT 'RUNNING, SUCCEEDED or FAILED',
    run_error       VARCHAR(1000) NULL COMMENT 'what a failed run threw',
    PRIMARY KEY (name)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;
