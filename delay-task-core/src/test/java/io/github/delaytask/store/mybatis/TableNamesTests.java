package io.github.delaytask.store.mybatis;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class TableNamesTests {

    @Test
    void withoutAPrefixTheStatementsAreAsWritten() {
        String sql = "UPDATE taskinfo_logs l JOIN taskinfo t FORCE INDEX (idx_taskinfo_execute_time)";
        assertThat(TableNames.withPrefix("").sql(sql)).isSameAs(sql);
        assertThat(TableNames.withPrefix(null)).isSameAs(TableNames.NONE);
    }

    @Test
    void aPrefixGoesBeforeEveryTableAndIndexName() {
        TableNames tables = TableNames.withPrefix("billing_");
        assertThat(tables.sql("DELETE FROM taskinfo_logs FORCE INDEX (idx_taskinfo_logs_finished) WHERE task_id IN "
                + "(SELECT task_id FROM taskinfo)"))
            .isEqualTo("DELETE FROM billing_taskinfo_logs FORCE INDEX (idx_billing_taskinfo_logs_finished) WHERE "
                    + "task_id IN (SELECT task_id FROM billing_taskinfo)");
        assertThat(tables.sql("CREATE UNIQUE INDEX IF NOT EXISTS uk_taskinfo_biz_key ON taskinfo (biz_key)"))
            .isEqualTo("CREATE UNIQUE INDEX IF NOT EXISTS uk_billing_taskinfo_biz_key ON billing_taskinfo (biz_key)");
        assertThat(tables.tasks()).isEqualTo("billing_taskinfo");
        assertThat(tables.logs()).isEqualTo("billing_taskinfo_logs");
        assertThat(tables.store()).isEqualTo("billing_taskinfo_store");
    }

    @Test
    void aPrefixIsAPlainLowerCaseNameWhoseLongestIndexNameFitsEveryDatabase() {
        assertThat(TableNames.withPrefix("a1_").prefix()).isEqualTo("a1_");
        for (String refused : new String[] { "Billing_", "billing-", "1billing", "_billing", "billing.", "bill ing",
                "x".repeat(TableNames.MAX_PREFIX_LENGTH + 1) }) {
            assertThatIllegalArgumentException().isThrownBy(() -> TableNames.withPrefix(refused))
                .withMessageContaining("delay-task.jdbc.table-prefix is '" + refused + "'");
        }
        String longest = TableNames.withPrefix("x".repeat(TableNames.MAX_PREFIX_LENGTH))
            .sql("idx_taskinfo_logs_finished");
        assertThat(longest).hasSizeLessThanOrEqualTo(63);
    }

}
