package io.github.delaytask.autoconfigure;

import java.lang.reflect.Method;
import java.util.function.Supplier;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.ResourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringUtils;

/**
 * The data source holding the starter's tables ({@code delay-task.jdbc.data-source}), and the transactions on it.
 * <p>
 * A routing data source of baomidou's dynamic-datasource picks a data source by a key the calling thread holds, which
 * {@code @DS} sets: the starter pins its own connections to one data source of it (its primary by default), so that a
 * call from a {@code @DS("slave")} method still writes to the tables the starter reads.
 */
final class StoreDataSource {

    private static final String PROPERTY = "delay-task.jdbc.data-source";

    private static final boolean DYNAMIC_DATASOURCE_PRESENT = ClassUtils
        .isPresent("com.baomidou.dynamic.datasource.DynamicRoutingDataSource", StoreDataSource.class.getClassLoader());

    private StoreDataSource() {
    }

    /**
     * The data source the given name picks: a {@link DataSource} bean, or a data source of the routing data source of
     * dynamic-datasource; without a name, the application's.
     * @param application the application's data source, used without a name and to look names up in
     */
    static DataSource choose(BeanFactory beanFactory, @Nullable String name, Supplier<DataSource> application) {
        if (!StringUtils.hasText(name)) {
            return pinned(application.get(), "");
        }
        if (beanFactory.containsBean(name) && beanFactory.isTypeMatch(name, DataSource.class)) {
            return pinned(beanFactory.getBean(name, DataSource.class), "");
        }
        DataSource routing = application.get();
        if (isRouting(routing)) {
            return pinned(routing, name);
        }
        throw new IllegalStateException(PROPERTY + " is '" + name + "', but there is no DataSource bean of that name"
                + (DYNAMIC_DATASOURCE_PRESENT ? " and the application's DataSource is not dynamic-datasource's" : ""));
    }

    /** Transactions on the given data source, with the {@link #transactionManager} of it. */
    static TransactionTemplate transactions(DataSource dataSource, @Nullable PlatformTransactionManager application) {
        return new TransactionTemplate(transactionManager(dataSource, application));
    }

    /**
     * The transactions on the given data source: the application's transaction manager unless it manages another
     * data source (JPA's over this one, or JTA, stays in charge, and joins the application's transactions as it
     * should), else one of the starter's own, which joins a caller's transaction on the data source all the same.
     */
    static PlatformTransactionManager transactionManager(DataSource dataSource,
            @Nullable PlatformTransactionManager application) {
        if (application != null && !(dataSource instanceof DynamicDataSourcePin)) {
            DataSource managed = managedDataSource(application);
            if (managed == null || managed == dataSource) {
                return application;
            }
        }
        DataSourceTransactionManager own = new DataSourceTransactionManager(dataSource);
        own.afterPropertiesSet();
        return own;
    }

    /** The data source a transaction manager binds connections of, if it says. */
    private static @Nullable DataSource managedDataSource(PlatformTransactionManager manager) {
        if (manager instanceof ResourceTransactionManager resources
                && resources.getResourceFactory() instanceof DataSource dataSource) {
            return dataSource;
        }
        // JPA's and Hibernate's managers expose the data source whose connections they bind
        Method getter = ReflectionUtils.findMethod(manager.getClass(), "getDataSource");
        if (getter == null) {
            return null;
        }
        ReflectionUtils.makeAccessible(getter);
        return (ReflectionUtils.invokeMethod(getter, manager) instanceof DataSource dataSource) ? dataSource : null;
    }

    private static DataSource pinned(DataSource dataSource, String name) {
        if (!isRouting(dataSource)) {
            return dataSource;
        }
        DynamicDataSourcePin.check(dataSource, name, PROPERTY);
        DynamicDataSourcePin pin = new DynamicDataSourcePin(dataSource, name);
        try {
            pin.identity();
        }
        catch (RuntimeException ex) {
            // read on first use instead; the database's absence shows elsewhere
        }
        return pin;
    }

    private static boolean isRouting(DataSource dataSource) {
        return DYNAMIC_DATASOURCE_PRESENT && DynamicDataSourcePin.isRouting(dataSource);
    }

}
