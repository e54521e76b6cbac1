-- delay-task schema, version 3: business keys compare byte for byte (the UTF-8 of up to 191 characters), where a
-- text column takes the table's collation, under which 'order:AbC' = 'order:abc' and 'k' = 'k '.
ALTER TABLE taskinfo
    MODIFY COLUMN biz_key VARBINARY(764) NULL COMMENT 'business key, unique among live tasks; compared byte for byte';
ALTER TABLE taskinfo_logs
    MODIFY COLUMN biz_key VARBINARY(764) NULL;
