package io.github.delaytask.autoconfigure;

/**
 * The names of Spring Boot's auto-configurations the starter orders itself after, on both Boot lines: a name that
 * is not on the class path is ignored, where a class literal of the other line would not compile, and ordering by
 * name is what keeps a {@code @ConditionalOnBean} from being evaluated too early.
 */
final class BootAutoConfigurationNames {

    static final String REDIS_3 = "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration";

    static final String REDIS_4 = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration";

    static final String DATA_SOURCE_3 = "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration";

    static final String DATA_SOURCE_4 = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration";

    static final String TRANSACTION_MANAGER_3 = "org.springframework.boot.autoconfigure.jdbc."
            + "DataSourceTransactionManagerAutoConfiguration";

    static final String TRANSACTION_MANAGER_4 = "org.springframework.boot.jdbc.autoconfigure."
            + "DataSourceTransactionManagerAutoConfiguration";

    static final String TRANSACTION_3 = "org.springframework.boot.autoconfigure.transaction."
            + "TransactionAutoConfiguration";

    static final String TRANSACTION_4 = "org.springframework.boot.transaction.autoconfigure."
            + "TransactionAutoConfiguration";

    static final String JACKSON_3 = "org.springframework.boot.autoconfigure.jackson.JacksonAutoConfiguration";

    static final String JACKSON_4 = "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration";

    static final String METRICS_3 = "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration";

    static final String METRICS_4 = "org.springframework.boot.micrometer.metrics.autoconfigure."
            + "MetricsAutoConfiguration";

    static final String COMPOSITE_METER_REGISTRY_3 = "org.springframework.boot.actuate.autoconfigure.metrics."
            + "CompositeMeterRegistryAutoConfiguration";

    static final String COMPOSITE_METER_REGISTRY_4 = "org.springframework.boot.micrometer.metrics.autoconfigure."
            + "CompositeMeterRegistryAutoConfiguration";

    static final String SIMPLE_METRICS_EXPORT_3 = "org.springframework.boot.actuate.autoconfigure.metrics.export."
            + "simple.SimpleMetricsExportAutoConfiguration";

    static final String SIMPLE_METRICS_EXPORT_4 = "org.springframework.boot.micrometer.metrics.autoconfigure.export."
            + "simple.SimpleMetricsExportAutoConfiguration";

    static final String MYBATIS_PLUS = "com.baomidou.mybatisplus.autoconfigure.MybatisPlusAutoConfiguration";

    private BootAutoConfigurationNames() {
    }

}
