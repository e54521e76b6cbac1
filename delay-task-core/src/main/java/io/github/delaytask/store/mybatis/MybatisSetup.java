package io.github.delaytask.store.mybatis;

import javax.sql.DataSource;

import com.baomidou.mybatisplus.core.MybatisConfiguration;
import com.baomidou.mybatisplus.core.config.GlobalConfig;
import com.baomidou.mybatisplus.core.incrementer.DefaultIdentifierGenerator;
import com.baomidou.mybatisplus.core.incrementer.IdentifierGenerator;
import com.baomidou.mybatisplus.core.toolkit.GlobalConfigUtils;
import com.baomidou.mybatisplus.extension.plugins.MybatisPlusInterceptor;
import com.baomidou.mybatisplus.extension.plugins.inner.OptimisticLockerInnerInterceptor;
import org.apache.ibatis.mapping.Environment;
import org.apache.ibatis.session.Configuration;
import org.apache.ibatis.session.SqlSessionFactory;
import org.apache.ibatis.session.defaults.DefaultSqlSessionFactory;
import org.mybatis.spring.SqlSessionTemplate;
import org.mybatis.spring.transaction.SpringManagedTransactionFactory;

import org.springframework.util.Assert;

/**
 * The starter's own MyBatis-Plus configuration, holding its two mappers and nothing of the application's. Public for
 * wiring.
 * <p>
 * The application's configuration is written for the application's tables: its plugins (a tenant line, a data
 * permission, a dynamic table name) would rewrite the starter's statements, or ask for a tenant on the starter's own
 * threads, and its global settings (field strategies, column formats, logical deletes, camel-case mapping) would
 * change how the starter's entities map to its tables. In a configuration of its own the starter's statements are
 * the ones it wrote, checked by its own optimistic lock. They still join the caller's Spring transaction on the same
 * data source, as MyBatis-Spring takes its connections from the transaction bound to that data source.
 */
public final class MybatisSetup {

    private MybatisSetup() {
    }

    /**
     * The starter's sessions on the given data source.
     * @param ids the generator of the ids of new tasks (the application's, so that the starter's ids are of the same
     * kind as those of its own entities)
     */
    public static SqlSessionTemplate sqlSessions(DataSource dataSource, IdentifierGenerator ids) {
        return sqlSessions(dataSource, ids, TableNames.NONE);
    }

    /**
     * The starter's sessions on the given data source, its mappers on the tables of the given names.
     * @param ids the generator of the ids of new tasks (the application's, so that the starter's ids are of the same
     * kind as those of its own entities)
     */
    public static SqlSessionTemplate sqlSessions(DataSource dataSource, IdentifierGenerator ids, TableNames tables) {
        MybatisConfiguration configuration = new MybatisConfiguration(
                new Environment("delay-task", new SpringManagedTransactionFactory(), dataSource));
        GlobalConfig global = GlobalConfigUtils.defaults();
        global.setBanner(false);
        global.setIdentifierGenerator(ids);
        // the entities keep the global prefix, the configuration's own: the application's stays with its tables
        global.getDbConfig().setTablePrefix(tables.prefix());
        // before the mappers, whose statements are built from it
        GlobalConfigUtils.setGlobalConfig(configuration, global);
        // MyBatis-Plus files it under the configuration's identity hash, and keeps an earlier one of the same hash
        Assert.state(GlobalConfigUtils.getGlobalConfig(configuration) == global,
                "MyBatis-Plus holds another global configuration under the hash of the starter's");
        MybatisPlusInterceptor versions = new MybatisPlusInterceptor();
        versions.addInnerInterceptor(new OptimisticLockerInnerInterceptor());
        configuration.addInterceptor(versions);
        configuration.addInterceptor(new FreshPlanInterceptor());
        configuration.addMapper(TaskInfoMapper.class);
        configuration.addMapper(TaskInfoLogMapper.class);
        // not MyBatis-Plus's builder, which would make the generator the JVM-wide one of IdWorker
        SqlSessionFactory factory = new DefaultSqlSessionFactory(configuration);
        global.setSqlSessionFactory(factory);
        return new SqlSessionTemplate(factory);
    }

    /**
     * The generator MyBatis-Plus uses for {@code ASSIGN_ID} in the given configuration of the application's.
     */
    public static IdentifierGenerator identifierGenerator(Configuration configuration) {
        IdentifierGenerator generator = GlobalConfigUtils.getGlobalConfig(configuration).getIdentifierGenerator();
        return (generator != null) ? generator : DefaultIdentifierGenerator.getInstance();
    }

}
