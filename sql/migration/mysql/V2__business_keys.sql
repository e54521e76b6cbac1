-- delay-task schema, version 2: business keys, unique among live tasks; dead tasks listed by id.
ALTER TABLE taskinfo
    ADD COLUMN biz_key VARCHAR(191) NULL COMMENT 'business key, unique among live tasks',
    ADD UNIQUE KEY uk_taskinfo_biz_key (biz_key);
ALTER TABLE taskinfo_logs
    ADD COLUMN biz_key VARCHAR(191) NULL,
    DROP KEY idx_taskinfo_logs_status,
    ADD KEY idx_taskinfo_logs_status (status, task_id),
    ADD KEY idx_taskinfo_logs_biz_key (biz_key);
