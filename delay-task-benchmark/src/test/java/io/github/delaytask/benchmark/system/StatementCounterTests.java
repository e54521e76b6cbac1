package io.github.delaytask.benchmark.system;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class StatementCounterTests {

    @Test
    void postgreSqlsSingleStatementClaimIsAClaim() {
        assertThat(StatementCounter.isClaim("UPDATE taskinfo t SET version = t.version + 1, lease_until = ? "
                + "FROM (SELECT task_id FROM taskinfo WHERE task_id = ANY (?) FOR UPDATE SKIP LOCKED) c "
                + "WHERE t.task_id = c.task_id RETURNING t.task_id")).isTrue();
    }

    @Test
    void countsMySqlsClaimOfAJoinOfItsIdListWithTaskinfo() {
        assertThat(StatementCounter.isClaim("UPDATE JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$')) c "
                + "STRAIGHT_JOIN taskinfo t FORCE INDEX (PRIMARY) ON t.task_id = c.id "
                + "SET t.version = t.version + 1, t.lease_until = ?")).isTrue();
    }

    @Test
    void theVersionCheckedBatchOfThePortableClaimIsAClaim() {
        assertThat(StatementCounter.isClaim(
                "UPDATE taskinfo SET version = version + 1, lease_until = ? WHERE task_id = ? AND version = ?"))
            .isTrue();
    }

    @Test
    void readsUnclaimsAndLogUpdatesAreNotClaims() {
        assertThat(StatementCounter.isClaim("SELECT task_id FROM taskinfo WHERE task_id IN (?, ?) FOR UPDATE "
                + "SKIP LOCKED")).isFalse();
        assertThat(StatementCounter.isClaim("UPDATE taskinfo SET version=?, lease_until=null WHERE (task_id = ?)"))
            .isFalse();
        assertThat(StatementCounter.isClaim("UPDATE taskinfo_logs SET status = ?, lease_until = ? WHERE task_id = ?"))
            .isFalse();
    }

}
