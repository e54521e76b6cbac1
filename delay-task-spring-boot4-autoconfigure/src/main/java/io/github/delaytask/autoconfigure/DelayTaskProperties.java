package io.github.delaytask.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.delaytask.listener.ListenerSettings;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.util.Assert;
import org.springframework.util.unit.DataSize;

/**
 * Configuration properties of delay-task.
 */
@ConfigurationProperties("delay-task")
public class DelayTaskProperties {

    /**
     * Whether to enable delay-task.
     */
    private boolean enabled = true;

    /**
     * How far ahead tasks are brought from the database into Redis. Tasks due later stay only in the database. Must
     * be longer than the feed interval plus half a second.
     */
    private Duration preloadWindow = Duration.ofMinutes(5);

    /**
     * Time between passes of the feed, which brings the tasks that entered the preload window since its last pass from
     * the database into Redis, on one instance at a time.
     */
    private Duration feedInterval = Duration.ofSeconds(1);

    /**
     * Time between full reloads of the preload window from the database into Redis, a safety net paced to take no more
     * than half of the database's attention. Evidence of a loss (Redis lost its data or failed over, a hand-off was
     * given up, an instance started) has the whole window read sooner. Bounds how long a task is missing from Redis
     * after a loss nothing noticed.
     */
    private Duration reloadInterval = Duration.ofMinutes(10);

    /**
     * Time between moves of due tasks into the ready sets of every queue. Listeners do not wait for it: they move
     * the due tasks of their own queue when they poll.
     */
    private Duration refreshInterval = Duration.ofSeconds(1);

    /**
     * How long a consumer holds a task it took before the task is delivered again, at least 1s. Set it above the
     * longest handler time: a task whose handler outlives its lease may run twice.
     */
    private Duration lease = Duration.ofSeconds(30);

    /**
     * How long running handlers may finish when the application stops.
     */
    private Duration shutdownTimeout = Duration.ofSeconds(30);

    /**
     * Largest task parameters accepted by addTask.
     */
    private DataSize maxParametersSize = DataSize.ofKilobytes(64);

    /**
     * Whether an instance refuses to start when its reload interval, preload window, idle poll interval or wake-ups
     * differ from those of the instances running with the same Redis keys. Turn off on the new instances of a
     * rolling change of one of them, until the old instances are gone.
     */
    private boolean refuseConflictingSettings = true;

    private final Redis redis = new Redis();

    private final Jdbc jdbc = new Jdbc();

    private final Listener listener = new Listener();

    private final Retry retry = new Retry();

    private final Lock lock = new Lock();

    private final Metrics metrics = new Metrics();

    private final Observation observation = new Observation();

    private final Context context = new Context();

    private final Health health = new Health();

    private final History history = new History();

    private final Dashboard dashboard = new Dashboard();

    private final Jobs jobs = new Jobs();

    private final DatabaseDispatch databaseDispatch = new DatabaseDispatch();

    private final Schedules schedules = new Schedules();

    public boolean isEnabled() {
        return this.enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Duration getPreloadWindow() {
        return this.preloadWindow;
    }

    public void setPreloadWindow(Duration preloadWindow) {
        this.preloadWindow = preloadWindow;
    }

    public Duration getFeedInterval() {
        return this.feedInterval;
    }

    public void setFeedInterval(Duration feedInterval) {
        this.feedInterval = feedInterval;
    }

    public Duration getReloadInterval() {
        return this.reloadInterval;
    }

    public void setReloadInterval(Duration reloadInterval) {
        this.reloadInterval = reloadInterval;
    }

    public Duration getRefreshInterval() {
        return this.refreshInterval;
    }

    public void setRefreshInterval(Duration refreshInterval) {
        this.refreshInterval = refreshInterval;
    }

    public Duration getLease() {
        return this.lease;
    }

    public void setLease(Duration lease) {
        this.lease = lease;
    }

    public Duration getShutdownTimeout() {
        return this.shutdownTimeout;
    }

    public void setShutdownTimeout(Duration shutdownTimeout) {
        this.shutdownTimeout = shutdownTimeout;
    }

    public DataSize getMaxParametersSize() {
        return this.maxParametersSize;
    }

    public void setMaxParametersSize(DataSize maxParametersSize) {
        this.maxParametersSize = maxParametersSize;
    }

    public boolean isRefuseConflictingSettings() {
        return this.refuseConflictingSettings;
    }

    public void setRefuseConflictingSettings(boolean refuseConflictingSettings) {
        this.refuseConflictingSettings = refuseConflictingSettings;
    }

    public Redis getRedis() {
        return this.redis;
    }

    public Jdbc getJdbc() {
        return this.jdbc;
    }

    public Listener getListener() {
        return this.listener;
    }

    public Retry getRetry() {
        return this.retry;
    }

    public Lock getLock() {
        return this.lock;
    }

    public Metrics getMetrics() {
        return this.metrics;
    }

    public Observation getObservation() {
        return this.observation;
    }

    public Context getContext() {
        return this.context;
    }

    public Health getHealth() {
        return this.health;
    }

    public History getHistory() {
        return this.history;
    }

    public Dashboard getDashboard() {
        return this.dashboard;
    }

    public Jobs getJobs() {
        return this.jobs;
    }

    public Schedules getSchedules() {
        return this.schedules;
    }

    public DatabaseDispatch getDatabaseDispatch() {
        return this.databaseDispatch;
    }

    public static class Redis {

        /**
         * Whether delay-task uses the application's Redis. Off, or when the application has no Redis connection,
         * the database alone dispatches every queue at the poll interval of database-dispatch: tasks fire within
         * about that interval rather than within milliseconds, and cluster-wide listener limits are refused.
         */
        private boolean enabled = true;

        /**
         * Prefix of every Redis key and lock. By default "delay-task:" followed by the id of the database's task
         * store (table taskinfo_store), so that applications with databases of their own share no keys in one
         * Redis; "delay-task" for an application without the database.
         */
        private @Nullable String keyPrefix;

        /**
         * Longest time addTask of a task due within about a second, and the other changes, wait for Redis once the
         * database has committed them, whatever the command timeout of the Redis connection; an add of a task due
         * later returns at the commit. A task Redis has not taken by then is handed over later, or brought in by the
         * reload job.
         */
        private Duration handOffTimeout = Duration.ofSeconds(1);

        public boolean isEnabled() {
            return this.enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public @Nullable String getKeyPrefix() {
            return this.keyPrefix;
        }

        public void setKeyPrefix(@Nullable String keyPrefix) {
            this.keyPrefix = keyPrefix;
        }

        public Duration getHandOffTimeout() {
            return this.handOffTimeout;
        }

        public void setHandOffTimeout(Duration handOffTimeout) {
            this.handOffTimeout = handOffTimeout;
        }

    }

    public static class Jdbc {

        /**
         * Database schema initialization mode for the taskinfo and taskinfo_logs tables.
         */
        private DatabaseInitializationMode initializeSchema = DatabaseInitializationMode.EMBEDDED;

        /**
         * Path to the SQL file to use to initialize the database schema.
         */
        private String schema = "classpath:META-INF/delay-task/sql/schema-@@platform@@.sql";

        /**
         * Platform to use in the schema script location when the @@platform@@ placeholder is used. Auto-detected by
         * default: mysql (also for MariaDB), postgresql or h2.
         */
        private @Nullable String platform;

        /**
         * Whether addTask calls made at the same time outside a transaction share one statement and commit. Turn
         * off when the data source depends on the calling thread (a data source routed per tenant by a thread-bound
         * key) or when transactions are begun outside Spring's transaction management.
         */
        private boolean groupAdds = true;

        /**
         * Name of the data source holding the taskinfo and taskinfo_logs tables: a DataSource bean, or one data
         * source of dynamic-datasource's routing data source. By default, the data source of MyBatis, and of a
         * dynamic-datasource one its primary, whatever data source @DS chose for the calling thread.
         */
        private @Nullable String dataSource;

        /**
         * Whether to check at start-up that the schema has every table, column and index the starter uses, and
         * fail naming each one missing. Also when the starter runs its own script, which creates only what is
         * missing and changes no existing table: an upgraded schema can still lack an index.
         */
        private boolean validateSchema = true;

        /**
         * Prefix of the names of the starter's tables and indexes (with 'billing_', taskinfo becomes
         * billing_taskinfo, and so on), so that several applications share one database, each with tables of its own.
         * Lower-case letters, digits and '_', starting with a letter, at most 32 characters. The starter's schema
         * script and the schema check follow it; a script set in delay-task.jdbc.schema runs as written.
         */
        private String tablePrefix = "";

        public String getTablePrefix() {
            return this.tablePrefix;
        }

        public void setTablePrefix(String tablePrefix) {
            this.tablePrefix = tablePrefix;
        }

        public DatabaseInitializationMode getInitializeSchema() {
            return this.initializeSchema;
        }

        public void setInitializeSchema(DatabaseInitializationMode initializeSchema) {
            this.initializeSchema = initializeSchema;
        }

        public String getSchema() {
            return this.schema;
        }

        public void setSchema(String schema) {
            this.schema = schema;
        }

        public @Nullable String getPlatform() {
            return this.platform;
        }

        public void setPlatform(@Nullable String platform) {
            this.platform = platform;
        }

        public @Nullable String getDataSource() {
            return this.dataSource;
        }

        public void setDataSource(@Nullable String dataSource) {
            this.dataSource = dataSource;
        }

        public boolean isValidateSchema() {
            return this.validateSchema;
        }

        public void setValidateSchema(boolean validateSchema) {
            this.validateSchema = validateSchema;
        }

        public boolean isGroupAdds() {
            return this.groupAdds;
        }

        public void setGroupAdds(boolean groupAdds) {
            this.groupAdds = groupAdds;
        }

    }

    public static class Listener {

        /**
         * Whether to start the @DelayTaskListener containers. When off, tasks wait for poll or another instance.
         */
        private boolean enabled = true;

        /**
         * Whether the listeners start with the application context. When off, they wait for the
         * DelayTaskListenerEndpointRegistry bean's start(), and the health is out of service until then.
         */
        private boolean autoStartup = true;

        /**
         * Handler threads shared by all listeners of the application.
         */
        private int concurrency = 10;

        /**
         * Most tasks claimed ahead of free handler threads, so that fast handlers are fed in batches. Fewer are
         * claimed when handlers are slow, so that a claimed task starts within half its lease.
         */
        private int prefetch = 90;

        /**
         * Most tasks one claim takes from a queue.
         */
        private int batchSize = 100;

        /**
         * Longest wait between looks at an idle queue while wake-ups are off, which bounds how late a task added by
         * another instance fires then; also the longest wait for a free handler thread before looking again.
         */
        private Duration pollInterval = Duration.ofMillis(100);

        /**
         * Whether instances tell each other, over Redis pub/sub on the key prefix's channel, of tasks they schedule
         * due within the idle poll interval, so that a task added on one instance fires on time on another and an
         * idle queue needs a look only every idle-poll-interval.
         */
        private boolean wakeUps = true;

        /**
         * Longest wait between looks at an idle queue while wake-ups are on: bounds how late a task fires whose
         * wake-up was lost (a reconnect), and how soon an idle instance takes over the tasks of one that died once
         * their lease ran out or sees a loss of Redis data. Should be the same on every instance.
         */
        private Duration idlePollInterval = Duration.ofSeconds(30);

        /**
         * Longest run of a handler whose @DelayTaskListener sets no timeout of its own. Past it, the handler's thread
         * is interrupted and the run counts as a failed attempt.
         */
        private Duration timeout = ListenerSettings.DEFAULT_TIMEOUT;

        public Duration getTimeout() {
            return this.timeout;
        }

        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }

        public boolean isEnabled() {
            return this.enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public boolean isAutoStartup() {
            return this.autoStartup;
        }

        public void setAutoStartup(boolean autoStartup) {
            this.autoStartup = autoStartup;
        }

        public int getConcurrency() {
            return this.concurrency;
        }

        public void setConcurrency(int concurrency) {
            this.concurrency = concurrency;
        }

        public int getPrefetch() {
            return this.prefetch;
        }

        public void setPrefetch(int prefetch) {
            this.prefetch = prefetch;
        }

        public int getBatchSize() {
            return this.batchSize;
        }

        public void setBatchSize(int batchSize) {
            this.batchSize = batchSize;
        }

        public Duration getPollInterval() {
            return this.pollInterval;
        }

        public void setPollInterval(Duration pollInterval) {
            this.pollInterval = pollInterval;
        }

        public boolean isWakeUps() {
            return this.wakeUps;
        }

        public Duration getIdlePollInterval() {
            return this.idlePollInterval;
        }

        public void setIdlePollInterval(Duration idlePollInterval) {
            this.idlePollInterval = idlePollInterval;
        }

        public void setWakeUps(boolean wakeUps) {
            this.wakeUps = wakeUps;
        }

    }

    public static class Retry {

        /**
         * Attempts a task gets in all, the first included, before it becomes DEAD. 1 means no retry.
         */
        private int maxAttempts = 3;

        /**
         * Delay before the second attempt.
         */
        private Duration initialDelay = Duration.ofSeconds(1);

        /**
         * Factor applied to the delay after each further failure.
         */
        private double multiplier = 2.0;

        /**
         * Longest delay between attempts.
         */
        private Duration maxDelay = Duration.ofMinutes(10);

        public int getMaxAttempts() {
            return this.maxAttempts;
        }

        public void setMaxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
        }

        public Duration getInitialDelay() {
            return this.initialDelay;
        }

        public void setInitialDelay(Duration initialDelay) {
            this.initialDelay = initialDelay;
        }

        public double getMultiplier() {
            return this.multiplier;
        }

        public void setMultiplier(double multiplier) {
            this.multiplier = multiplier;
        }

        public Duration getMaxDelay() {
            return this.maxDelay;
        }

        public void setMaxDelay(Duration maxDelay) {
            this.maxDelay = maxDelay;
        }

    }

    public static class Lock {

        /**
         * How long a @DistributedLock is held at most when the annotation does not say; bounds how long a crashed
         * holder blocks the job.
         */
        private Duration lockAtMostFor = Duration.ofMinutes(10);

        /**
         * How long a @DistributedLock is held at least when the annotation does not say, so that an instance whose
         * clock is a little behind does not run the same trigger again.
         */
        private Duration lockAtLeastFor = Duration.ZERO;

        /**
         * Where the locks of @DistributedLock and of the starter's own jobs are kept: in Redis, in the task store's
         * database (table taskinfo_lock, by the database's clock), or, with "auto", in Redis when the application has
         * a Redis connection and in the database otherwise.
         */
        private Store store = Store.AUTO;

        public Store getStore() {
            return this.store;
        }

        public void setStore(Store store) {
            this.store = store;
        }

        public Duration getLockAtMostFor() {
            return this.lockAtMostFor;
        }

        public void setLockAtMostFor(Duration lockAtMostFor) {
            this.lockAtMostFor = lockAtMostFor;
        }

        public Duration getLockAtLeastFor() {
            return this.lockAtLeastFor;
        }

        public void setLockAtLeastFor(Duration lockAtLeastFor) {
            this.lockAtLeastFor = lockAtLeastFor;
        }

    }

    /**
     * Where the locks are kept.
     */
    public enum Store {

        /** Redis when the application has a Redis connection, the database otherwise. */
        AUTO,

        /** Redis: {@code SET NX PX} with a random token, on the Redis server's clock. */
        REDIS,

        /** The task store's database: a row per lock in {@code taskinfo_lock}, on the database's clock. */
        DATABASE

    }

    public static class Metrics {

        /**
         * Most queues (task type and priority) given meters of their own, so that the number of series stays
         * bounded. Further queues get none, and a warning is logged once.
         */
        private int maxQueues = 100;

        public int getMaxQueues() {
            return this.maxQueues;
        }

        public void setMaxQueues(int maxQueues) {
            this.maxQueues = maxQueues;
        }

    }

    public static class Observation {

        /**
         * Whether to make the delaytask.add and delaytask.listener observations. Each add's trace context is then
         * stored with its task, in the column taskinfo.trace_context, and the run of its handler continues the
         * trace.
         */
        private boolean enabled;

        public boolean isEnabled() {
            return this.enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

    }

    public static class Context {

        /**
         * Keys of SLF4J's MDC whose values on the thread that adds a task are stored with it, in the column
         * taskinfo.trace_context, and put back in the MDC around each run of its handler. TaskContextPropagator
         * beans carry other context, such as a tenant id.
         */
        private List<String> mdcKeys = new ArrayList<>();

        public List<String> getMdcKeys() {
            return this.mdcKeys;
        }

        public void setMdcKeys(List<String> mdcKeys) {
            this.mdcKeys = mdcKeys;
        }

    }

    public static class Health {

        /**
         * How long the database, or Redis when the database does not dispatch in its stead, may fail to answer the
         * health checks, check after check, before the delayTask health contributor reports DOWN. A shorter outage
         * keeps it UP.
         */
        private Duration unreachableAfter = Duration.ofSeconds(10);

        public Duration getUnreachableAfter() {
            return this.unreachableAfter;
        }

        public void setUnreachableAfter(Duration unreachableAfter) {
            this.unreachableAfter = unreachableAfter;
        }

    }

    public static class Schedules {

        /**
         * Whether to run recurring schedules: store those declared as TaskSchedule beans at start-up, and add the
         * tasks of their times. Off, the instance leaves schedules to the others.
         */
        private boolean enabled = true;

        /**
         * Time between looks at the stored schedules, on each instance. The tasks of a schedule's times are stored
         * up to twice this ahead, so they run on time; a time looked at later than that was missed, and its
         * schedule's catch-up policy applies.
         */
        private Duration checkInterval = Duration.ofSeconds(10);

        public boolean isEnabled() {
            return this.enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public Duration getCheckInterval() {
            return this.checkInterval;
        }

        public void setCheckInterval(Duration checkInterval) {
            this.checkInterval = checkInterval;
        }

    }

    public static class History {

        /**
         * How long executed and cancelled tasks stay in taskinfo_logs after they finished. Rows of tasks finished
         * before the schema recorded finishing times count from their execute time.
         */
        private Duration retention = Duration.ofDays(30);

        /**
         * How long dead tasks stay in taskinfo_logs after their last attempt. When not set, they stay until requeued.
         */
        private @Nullable Duration deadRetention;

        /**
         * Time between purges of finished tasks older than their retention from taskinfo_logs.
         */
        private Duration purgeInterval = Duration.ofHours(1);

        /**
         * Whether to purge finished tasks older than their retention from taskinfo_logs. Turn off to keep every
         * task, or when the table's history is removed by other means, such as dropping partitions.
         */
        private boolean purgeEnabled = true;

        public Duration getRetention() {
            return this.retention;
        }

        public void setRetention(Duration retention) {
            this.retention = retention;
        }

        public @Nullable Duration getDeadRetention() {
            return this.deadRetention;
        }

        public void setDeadRetention(@Nullable Duration deadRetention) {
            this.deadRetention = deadRetention;
        }

        public Duration getPurgeInterval() {
            return this.purgeInterval;
        }

        public void setPurgeInterval(Duration purgeInterval) {
            this.purgeInterval = purgeInterval;
        }

        public boolean isPurgeEnabled() {
            return this.purgeEnabled;
        }

        public void setPurgeEnabled(boolean purgeEnabled) {
            this.purgeEnabled = purgeEnabled;
        }

    }

    public static class Jobs {

        /**
         * Whether the reload, refresh and purge jobs start with the application context. When off, they wait for
         * the DelayTaskJobs bean's start(): until then tasks due beyond the preload window do not reach Redis, and
         * a Redis that lost its data is not recovered.
         */
        private boolean autoStartup = true;

        public boolean isAutoStartup() {
            return this.autoStartup;
        }

        public void setAutoStartup(boolean autoStartup) {
            this.autoStartup = autoStartup;
        }

    }

    public static class DatabaseDispatch {

        /**
         * Whether an instance claims due tasks straight from the database while Redis does not answer its claims
         * (down, failing over, restarting), so that tasks still fire, at poll-interval precision. Queues with a
         * cluster-wide limit wait for Redis instead.
         */
        private boolean enabled = true;

        /**
         * How often each queue is claimed from the database while Redis does not answer, and how often Redis is
         * asked whether it answers again; without Redis (delay-task.redis.enabled=false), how often an idle queue is
         * claimed from. Each look is one short transaction per instance for all its queues due.
         */
        private Duration pollInterval = Duration.ofMillis(500);

        /**
         * Longest a claim waits for Redis before the instance claims the queue from the database, however long
         * spring.data.redis.timeout is (Lettuce's default is a minute): a Redis that stops answering is noticed this
         * soon. An answer that comes later is used by a later claim, and a queue goes back to Redis only once Redis
         * answers within this time. At most half the lease is used. Queues with a cluster-wide limit wait for Redis.
         */
        private Duration claimTimeout = Duration.ofSeconds(2);

        public Duration getClaimTimeout() {
            return this.claimTimeout;
        }

        public void setClaimTimeout(Duration claimTimeout) {
            this.claimTimeout = claimTimeout;
        }

        public boolean isEnabled() {
            return this.enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public Duration getPollInterval() {
            return this.pollInterval;
        }

        public void setPollInterval(Duration pollInterval) {
            this.pollInterval = pollInterval;
        }

    }

    public static class Dashboard {

        /**
         * Whether to serve the dashboard, a web page of the queues and the dead tasks that acts through the
         * delaytasks endpoint, when the application is a Spring MVC web application.
         */
        private boolean enabled;

        /**
         * Path of the dashboard, below the application's context path. Starts with a slash and does not end with
         * one.
         */
        private String path = "/delay-task";

        public boolean isEnabled() {
            return this.enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public String getPath() {
            return this.path;
        }

        public void setPath(String path) {
            Assert.isTrue(path.startsWith("/") && !path.endsWith("/"), () -> "delay-task.dashboard.path ('" + path
                    + "') must start with '/' and must not end with '/', such as '/delay-task'");
            Assert.isTrue(!path.contains("*") && !path.contains("{"), () -> "delay-task.dashboard.path ('" + path
                    + "') must be a plain path, without patterns");
            this.path = path;
        }

    }

}
