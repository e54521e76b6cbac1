package io.github.delaytask.autoconfigure;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.Set;
import java.util.TreeSet;

import javax.sql.DataSource;

import com.baomidou.dynamic.datasource.DynamicRoutingDataSource;
import com.baomidou.dynamic.datasource.ds.GroupDataSource;
import com.baomidou.dynamic.datasource.tx.TransactionContext;
import com.baomidou.dynamic.datasource.toolkit.DynamicDataSourceContextHolder;
import org.jspecify.annotations.Nullable;

import org.springframework.core.InfrastructureProxy;
import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * One data source of dynamic-datasource's routing data source, whatever {@code @DS} key the calling thread holds.
 * Loaded only where dynamic-datasource is.
 * <p>
 * Spring binds transactional connections to the routing data source ({@link InfrastructureProxy}), the starter's as
 * well as the application's, so that the starter's statements join a caller's transaction on it. Such a transaction
 * took its connection from whichever data source {@code @DS} chose when it began: one to another database than this
 * data source's is refused, with a message, rather than given the starter's writes. A {@code @DSTransactional}
 * transaction, which dynamic-datasource runs itself, does not hold the starter's connections: their writes commit
 * on their own.
 */
final class DynamicDataSourcePin extends DelegatingDataSource implements InfrastructureProxy {

    /** The data source's name, or the empty string for the routing data source's primary. */
    private final String name;

    /** The database this data source's connections reach, read from the first of them. */
    private volatile @Nullable Identity identity;

    /** The caller's connection last compared, and whether it reaches this data source's database. */
    private volatile @Nullable Verdict last;

    DynamicDataSourcePin(DataSource routing, String name) {
        super(routing);
        this.name = name;
    }

    static boolean isRouting(DataSource dataSource) {
        return dataSource instanceof DynamicRoutingDataSource;
    }

    /**
     * Fail with a message naming the property unless the routing data source has a data source of that name (the
     * empty name for its primary) that is not a group of several, among which writes would be spread.
     */
    static void check(DataSource routing, String name, String property) {
        DynamicRoutingDataSource dynamic = (DynamicRoutingDataSource) routing;
        Set<String> known = new TreeSet<>(dynamic.getDataSources().keySet());
        known.addAll(dynamic.getGroupDataSources().keySet());
        String described = name.isEmpty() ? "the primary data source of dynamic-datasource"
                : property + " is '" + name + "', which";
        GroupDataSource group = dynamic.getGroupDataSources().get(name);
        if (group != null && group.size() > 1) {
            throw new IllegalStateException(described + " is a group of " + group.size() + " data sources, which "
                    + "dynamic-datasource takes turns with: set " + property + " to one of them " + known);
        }
        if (!name.isEmpty() && group == null && !dynamic.getDataSources().containsKey(name)) {
            throw new IllegalStateException(described + " is neither a DataSource bean nor a data source of "
                    + "dynamic-datasource (it has " + known + ")");
        }
    }

    @Override
    public Connection getConnection() throws SQLException {
        String transaction = TransactionContext.getXID();
        TransactionContext.remove();
        DynamicDataSourceContextHolder.push(this.name);
        try {
            return super.getConnection();
        }
        finally {
            DynamicDataSourceContextHolder.poll();
            if (transaction != null) {
                TransactionContext.bind(transaction);
            }
        }
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        throw new UnsupportedOperationException("delay-task takes its connections with the data source's own login");
    }

    /**
     * The routing data source, to which transactional connections are bound.
     * @throws InvalidDataAccessApiUsageException if a caller's transaction holds a connection to another database
     * there
     */
    @Override
    public Object getWrappedObject() {
        DataSource routing = obtainTargetDataSource();
        // the routing data source is no proxy itself, so this looks its binding up directly
        if (TransactionSynchronizationManager.getResource(routing) instanceof ConnectionHolder holder
                && holder.getConnectionHandle() != null && !toThisDatabase(holder.getConnection())) {
            throw new InvalidDataAccessApiUsageException("delay-task keeps its tasks in " + this + " (" + identity()
                    + "), but this thread's transaction was begun on another data source of dynamic-datasource ("
                    + Identity.of(holder.getConnection()) + "), which cannot hold delay-task's writes: add, cancel "
                    + "and reschedule tasks outside that transaction, or in one begun on " + this);
        }
        return routing;
    }

    private boolean toThisDatabase(Connection connection) {
        Verdict verdict = this.last;
        if (verdict == null || verdict.connection() != connection) {
            verdict = new Verdict(connection, Identity.of(connection).equals(identity()));
            this.last = verdict;
        }
        return verdict.same();
    }

    /**
     * The database of this data source, read from a connection of its own the first time; the auto-configuration
     * asks at start-up, so that no caller holding a connection waits for a second one.
     */
    Identity identity() {
        Identity known = this.identity;
        if (known == null) {
            try (Connection connection = getConnection()) {
                known = Identity.of(connection);
            }
            catch (SQLException ex) {
                throw new CannotGetJdbcConnectionException("Failed to obtain a connection of " + this, ex);
            }
            this.identity = known;
        }
        return known;
    }

    @Override
    public String toString() {
        return "dynamic-datasource's " + (this.name.isEmpty() ? "primary data source" : "'" + this.name + "'");
    }

    /** Where a connection leads: the same database under the same login and default schema. */
    record Identity(String url, @Nullable String user, @Nullable String catalog, @Nullable String schema) {

        static Identity of(Connection connection) {
            try {
                DatabaseMetaData metaData = connection.getMetaData();
                return new Identity(String.valueOf(metaData.getURL()), metaData.getUserName(), connection.getCatalog(),
                        connection.getSchema());
            }
            catch (SQLException ex) {
                throw new CannotGetJdbcConnectionException("Failed to read where a connection leads", ex);
            }
        }

        @Override
        public String toString() {
            return this.url;
        }

    }

    private record Verdict(Connection connection, boolean same) {
    }

}
