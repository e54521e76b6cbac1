-- delay-task schema, version 7: a dead task keeps the context its add carried, for its requeue.
ALTER TABLE taskinfo_logs
    ADD COLUMN trace_context VARCHAR(1000) NULL COMMENT 'of a dead task: the context its add carried, for its requeue';
