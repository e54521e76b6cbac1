package io.github.delaytask.autoconfigure;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Set;
import java.util.TreeSet;

import javax.sql.DataSource;

import com.baomidou.dynamic.datasource.DynamicRoutingDataSource;
import com.baomidou.dynamic.datasource.toolkit.DynamicDataSourceContextHolder;

import org.jspecify.annotations.Nullable;

import org.springframework.core.InfrastructureProxy;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * One data source of dynamic-datasource's routing data source, whatever {@code @DS} key the calling thread holds.
 * Loaded only where dynamic-datasource is.
 * <p>
 * A caller's Spring transaction binds its connection to the routing data source, on whichever data source
 * {@code @DS} chose when it began. The starter's statements join it when that connection is to the starter's database
 * ({@link InfrastructureProxy} then leads Spring to the routing data source's binding), so that the caller's commit
 * or rollback covers them. Otherwise, and outside a caller's transaction, they run in transactions of their own on
 * this data source, bound to this object, which nothing of the application's uses.
 */
final class DynamicDataSourcePin extends DelegatingDataSource implements InfrastructureProxy {

    /** The data source's name, or the empty string for the routing data source's primary. */
    private final String name;

    /** The URL of this data source's database, read from its first connection. */
    private volatile @Nullable String url;

    /** The caller's connection last compared, and whether it was to this data source's database. */
    private volatile @Nullable Verdict last;

    DynamicDataSourcePin(DataSource routing, String name) {
        super(routing);
        this.name = name;
    }

    static boolean isRouting(DataSource dataSource) {
        return dataSource instanceof DynamicRoutingDataSource;
    }

    /** Fail with a message naming the property unless the routing data source has a data source of that name. */
    static void check(DataSource routing, String name, String property) {
        DynamicRoutingDataSource dynamic = (DynamicRoutingDataSource) routing;
        if (!dynamic.getDataSources().containsKey(name) && !dynamic.getGroupDataSources().containsKey(name)) {
            Set<String> known = new TreeSet<>(dynamic.getDataSources().keySet());
            known.addAll(dynamic.getGroupDataSources().keySet());
            throw new IllegalStateException(property + " is '" + name + "', which is neither a DataSource bean nor a "
                    + "data source of dynamic-datasource (it has " + known + ")");
        }
    }

    @Override
    public Connection getConnection() throws SQLException {
        DynamicDataSourceContextHolder.push(this.name);
        try {
            return super.getConnection();
        }
        finally {
            DynamicDataSourceContextHolder.poll();
        }
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        DynamicDataSourceContextHolder.push(this.name);
        try {
            return super.getConnection(username, password);
        }
        finally {
            DynamicDataSourceContextHolder.poll();
        }
    }

    /**
     * The key of the starter's transactional connections: the routing data source while a caller's transaction holds a
     * connection to this data source's database there, else this object.
     */
    @Override
    public Object getWrappedObject() {
        // a connection of the starter's own stays bound under this object until it is released, whatever the
        // application binds meanwhile
        if (TransactionSynchronizationManager.getResourceMap().containsKey(this)) {
            return this;
        }
        DataSource routing = obtainTargetDataSource();
        // the routing data source is no proxy itself, so this looks its binding up directly
        return (TransactionSynchronizationManager.getResource(routing) instanceof ConnectionHolder holder
                && holder.getConnectionHandle() != null && toThisDatabase(holder.getConnection())) ? routing : this;
    }

    private boolean toThisDatabase(Connection connection) {
        Verdict verdict = this.last;
        if (verdict == null || verdict.connection() != connection) {
            verdict = new Verdict(connection, url(connection).equals(ownUrl()));
            this.last = verdict;
        }
        return verdict.same();
    }

    private String ownUrl() {
        String own = this.url;
        if (own == null) {
            try (Connection connection = getConnection()) {
                own = url(connection);
            }
            catch (SQLException ex) {
                throw new CannotGetJdbcConnectionException("Failed to obtain a connection of " + this, ex);
            }
            this.url = own;
        }
        return own;
    }

    private static String url(Connection connection) {
        try {
            return String.valueOf(connection.getMetaData().getURL());
        }
        catch (SQLException ex) {
            throw new CannotGetJdbcConnectionException("Failed to read the URL of a connection", ex);
        }
    }

    private record Verdict(Connection connection, boolean same) {
    }

    @Override
    public String toString() {
        return "dynamic-datasource's " + (this.name.isEmpty() ? "primary" : "'" + this.name + "'");
    }

}
