package io.github.delaytask.store.mybatis;

import java.sql.SQLException;
import java.sql.Statement;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A {@link JdbcTemplate} whose statements PostgreSQL plans at each execution ({@link FreshPlans}), with the settings
 * of the template it is made from.
 */
final class FreshPlanJdbcTemplate extends JdbcTemplate {

    FreshPlanJdbcTemplate(JdbcTemplate settings) {
        super(settings.getDataSource(), true);
        setExceptionTranslator(settings.getExceptionTranslator());
        setFetchSize(settings.getFetchSize());
        setMaxRows(settings.getMaxRows());
        setQueryTimeout(settings.getQueryTimeout());
        setIgnoreWarnings(settings.isIgnoreWarnings());
        setSkipResultsProcessing(settings.isSkipResultsProcessing());
        setSkipUndeclaredResults(settings.isSkipUndeclaredResults());
        setResultsMapCaseInsensitive(settings.isResultsMapCaseInsensitive());
        afterPropertiesSet();
    }

    @Override
    protected void applyStatementSettings(Statement statement) throws SQLException {
        super.applyStatementSettings(statement);
        FreshPlans.apply(statement);
    }

}
