-- delay-task schema, version 10: the paused queues when delay-task runs without Redis.
CREATE TABLE taskinfo_queue (
    task_type  INT     NOT NULL,
    priority   INT     NOT NULL,
    paused_at  BIGINT  NOT NULL COMMENT 'when it was paused, epoch ms by the database clock',
    PRIMARY KEY (task_type, priority)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;
