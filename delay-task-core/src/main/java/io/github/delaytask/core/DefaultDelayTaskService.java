package io.github.delaytask.core;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskException;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.PayloadCodec;
import io.github.delaytask.ScheduleDetails;
import io.github.delaytask.TaskContextPropagator;
import io.github.delaytask.TaskDetails;
import io.github.delaytask.TaskSchedule;
import io.github.delaytask.observation.TaskObservations;
import io.github.delaytask.store.NewTask;
import io.github.delaytask.store.StoredTask;
import io.github.delaytask.store.TaskStore;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.transaction.TransactionException;
import org.springframework.util.Assert;

/**
 * {@link DelayTaskService} on the task store and the Redis queues. Public for wiring.
 * <p>
 * The database is written first, in the caller's transaction if any; Redis after the commit. A failed Redis write
 * loses nothing: the feed brings every stored task into Redis before it is due, reading the whole window after a
 * hand-off was given up. Single adds made outside a
 * transaction at the same time share one statement and commit ({@link AddCombiner}), unless turned off.
 */
public class DefaultDelayTaskService implements DelayTaskService, SmartLifecycle, DisposableBean {

    private static final Log logger = LogFactory.getLog(DefaultDelayTaskService.class);

    private static final int MAX_PAGE_SIZE = 1000;

    /**
     * Rounds of {@link #addOrReplaceTask}: one is lost only to the key's task being added, finishing or being taken
     * by a consumer between its read and its change.
     */
    private static final int REPLACE_ATTEMPTS = 10;

    /**
     * How far short of the preload window a task must be due to be handed to Redis by its write: a task due later is
     * left to the feed. Less than the feed's own margin, by what two instances' estimates of the due clock may differ,
     * so that a task committed as the feed reads is one or the other's (see the feed, in the jobs); more than none, so
     * that a task due exactly a window ahead, a common delay, goes to Redis once rather than twice.
     */
    static final long HAND_OFF_MARGIN_MILLIS = 250;

    /**
     * How far beyond the preload window a task must be moved for it to be taken out of Redis rather than moved in it:
     * longer than Redis may stall a removal that the feed then overtakes (see {@link #moveInRedis}).
     */
    static final long MOVE_OUT_MARGIN_MILLIS = 30_000;

    /** How soon a new task must be due for its caller to wait for Redis: see {@link #handOffNew}. */
    static final long DUE_SOON_MILLIS = 1000;

    /** Dead tasks read at a time by a requeue of a queue's dead tasks. */
    private static final int REQUEUE_PAGE = 1000;

    private final TaskStore store;

    private final Claims claims;

    private final Outcomes outcomes;

    private final Pauses pauses;

    private final NewTasks newTasks;

    private final Clock clock;

    private final ServiceSettings settings;

    private final AddCombiner adds;

    private final RedisHandOff handOff;

    private final CallerTransaction transaction;

    private final PollRedisHalf pollRedisHalf = new PollRedisHalf();

    private volatile boolean running;

    private final TaskEvents events;

    private final TaskObservations observations;

    private final TaskContexts contexts;

    private volatile @Nullable Schedules schedules;

    /**
     * @param clock the clock of execute times
     * @param observations the observations of adds, whose trace context is stored with the tasks
     * @param contexts what of the adding thread's context is stored with the tasks, for their handlers
     */
    public DefaultDelayTaskService(TaskStore store, TaskQueues queues, Claims claims, Outcomes outcomes,
            Pauses pauses, DueSignals signals, PayloadCodec codec, Clock clock, ServiceSettings settings,
            TaskEvents events, TaskObservations observations, TaskContexts contexts) {
        this.observations = observations;
        this.contexts = contexts;
        this.store = store;
        this.claims = claims;
        this.outcomes = outcomes;
        this.pauses = pauses;
        this.newTasks = new NewTasks(codec, settings.maxParametersSize());
        this.clock = clock;
        this.settings = settings;
        this.events = events;
        this.transaction = new CallerTransaction(store, signals::handOffsDropped);
        this.handOff = new RedisHandOff(queues, signals, settings.redisHandOffTimeout());
        this.adds = new AddCombiner(this::storeAll, (task) -> store.insert(task).created(), this::handOffNew,
                signals::handOffsDropped);
    }

    @Override
    public long addTask(DelayTask task) {
        NewTask newTask = this.newTasks.of(task, this.clock.millis());
        return this.observations.observeAdd(newTask.taskType(), newTask.priority(),
                (traceFields) -> addTask(task, newTask.withTraceContext(this.contexts.capture(traceFields))));
    }

    private long addTask(DelayTask task, NewTask newTask) {
        TaskStore.Insertion insertion;
        try {
            insertion = insert(newTask);
        }
        catch (DuplicateKeyException ex) {
            throw new DelayTaskException("A task with id " + task.getTaskId() + " already exists", ex);
        }
        catch (DataAccessException | TransactionException ex) {
            throw new DelayTaskException("Could not store " + task, ex);
        }
        task.setTaskId(insertion.taskId());
        if (insertion.created() != null) {
            task.setExecuteTime(newTask.executeTime());
            task.setParameters(newTask.parameters());
        }
        return insertion.taskId();
    }

    @Override
    public long addOrReplaceTask(DelayTask task) {
        Assert.notNull(task, "Task must not be null");
        Assert.isTrue(task.getBizKey() != null, "addOrReplaceTask needs a task with a business key, which names the "
                + "task it replaces");
        Assert.isTrue(task.getTaskId() == null, () -> "addOrReplaceTask takes no task id (" + task.getTaskId()
                + "): a replaced task keeps its own");
        NewTask newTask = this.newTasks.of(task, this.clock.millis());
        return this.observations.observeAdd(newTask.taskType(), newTask.priority(),
                (traceFields) -> addOrReplace(task, newTask.withTraceContext(this.contexts.capture(traceFields))));
    }

    /**
     * Replace the live task of the key, or add one; a task that another call adds, or that finishes or is taken, in
     * between sends this round again. Each decision reads what was last committed, whatever a caller's snapshot.
     */
    private long addOrReplace(DelayTask task, NewTask newTask) {
        String bizKey = newTask.bizKey();
        for (int attempt = 0; attempt < REPLACE_ATTEMPTS; attempt++) {
            StoredTask live = dataAccess(() -> this.store.findLiveByBizKey(bizKey), "find the task with key " + bizKey);
            if (live == null) {
                TaskStore.Insertion insertion = dataAccess(() -> this.store.insertKeyed(newTask), "store " + task);
                if (insertion.created() != null) {
                    StoredTask created = insertion.created();
                    this.transaction.afterCommit(List.of(created), () -> enqueueNew(List.of(created)));
                    task.setTaskId(created.taskId());
                    task.setExecuteTime(created.executeTime());
                    task.setParameters(created.parameters());
                    return created.taskId();
                }
                // another call added a task of the key meanwhile: replace it
                continue;
            }
            if (live.taskType() != newTask.taskType() || live.priority() != newTask.priority()) {
                throw new DelayTaskException("The live task " + live.taskId() + " with key " + bizKey + " is of type "
                        + live.taskType() + " and priority " + live.priority() + ", not " + newTask.taskType() + " and "
                        + newTask.priority() + ": a replacement keeps the task's queue");
            }
            task.setTaskId(live.taskId());
            if (live.leaseUntil() != null) {
                // a consumer holds it: never replaced
                return live.taskId();
            }
            StoredTask replaced = dataAccess(() -> this.store.replace(live, newTask.executeTime(),
                    newTask.parameters(), newTask.traceContext()), "replace task " + live.taskId());
            if (replaced != null) {
                this.transaction.afterCommit(() -> moveInRedis(replaced));
                task.setExecuteTime(replaced.executeTime());
                task.setParameters(replaced.parameters());
                return replaced.taskId();
            }
        }
        throw new DelayTaskException("Could not add or replace the task with key " + bizKey + ": it changed under each "
                + "of " + REPLACE_ATTEMPTS + " attempts");
    }

    /**
     * Store a task and, once committed, hand it to Redis. Outside a transaction, concurrent adds share a statement;
     * a business key needs its own look-up first, and a caller's transaction its own connection.
     */
    private TaskStore.Insertion insert(NewTask task) {
        if (this.settings.groupAdds() && task.bizKey() == null && !this.transaction.active()) {
            StoredTask created = this.adds.add(task);
            return new TaskStore.Insertion(created.taskId(), created);
        }
        TaskStore.Insertion insertion = this.store.insert(task);
        StoredTask created = insertion.created();
        if (created != null) {
            this.transaction.afterCommit(List.of(created), () -> enqueueNew(List.of(created)));
        }
        return insertion;
    }

    private List<StoredTask> storeAll(List<NewTask> tasks) {
        return this.store.insertAll(tasks).stream().map(TaskStore.Insertion::created).toList();
    }

    @Override
    public List<Long> addTasks(List<DelayTask> tasks) {
        Assert.notNull(tasks, "Tasks must not be null");
        long now = this.clock.millis();
        List<NewTask> newTasks = new ArrayList<>(tasks.size());
        for (DelayTask task : tasks) {
            newTasks.add(this.newTasks.of(task, now));
        }
        return this.observations.observeAdds(tasks, (traceFields) -> {
            String carried = this.contexts.capture(traceFields);
            return addTasks(tasks, (carried != null)
                    ? newTasks.stream().map((task) -> task.withTraceContext(carried)).toList() : newTasks);
        });
    }

    private List<Long> addTasks(List<DelayTask> tasks, List<NewTask> newTasks) {
        List<TaskStore.Insertion> insertions;
        try {
            insertions = this.store.insertAll(newTasks);
        }
        catch (DuplicateKeyException ex) {
            throw new DelayTaskException("A task with one of the given ids already exists", ex);
        }
        catch (DataAccessException | TransactionException ex) {
            throw new DelayTaskException("Could not store " + tasks.size() + " tasks", ex);
        }
        List<Long> ids = new ArrayList<>(tasks.size());
        List<StoredTask> created = new ArrayList<>(tasks.size());
        for (int i = 0; i < tasks.size(); i++) {
            TaskStore.Insertion insertion = insertions.get(i);
            DelayTask task = tasks.get(i);
            task.setTaskId(insertion.taskId());
            if (insertion.created() != null) {
                task.setExecuteTime(insertion.created().executeTime());
                task.setParameters(insertion.created().parameters());
                created.add(insertion.created());
            }
            ids.add(insertion.taskId());
        }
        this.transaction.afterCommit(created, () -> enqueueNew(created));
        return ids;
    }

    @Override
    public boolean cancelTask(long taskId) {
        StoredTask cancelled = dataAccess(() -> this.store.cancel(taskId), "cancel task " + taskId);
        if (cancelled == null) {
            // a dead task has left taskinfo and Redis already: only its log changes
            return dataAccess(() -> this.store.cancelDead(taskId), "cancel dead task " + taskId);
        }
        this.transaction.afterCommit(() -> this.handOff.remove(cancelled));
        return true;
    }

    @Override
    public boolean cancelTask(String bizKey) {
        Assert.hasText(bizKey, "Business key must not be empty");
        Long taskId = dataAccess(() -> this.store.findLiveIdByBizKey(bizKey), "find the task with key " + bizKey);
        return taskId != null && cancelTask(taskId);
    }

    @Override
    public Optional<TaskDetails> findTask(long taskId) {
        return Optional.ofNullable(dataAccess(() -> this.store.findDetails(taskId), "find task " + taskId));
    }

    @Override
    public Optional<TaskDetails> findTask(String bizKey) {
        Assert.hasText(bizKey, "Business key must not be empty");
        Long taskId = dataAccess(() -> this.store.findLiveIdByBizKey(bizKey), "find the task with key " + bizKey);
        return (taskId != null) ? findTask(taskId) : Optional.empty();
    }

    @Override
    public List<TaskDetails> findDeadTasks(int page, int size) {
        int offset = offsetOf(page, size);
        return dataAccess(() -> this.store.findDead(offset, size), "list dead tasks");
    }

    @Override
    public List<TaskDetails> findDeadTasksNewestFirst(int page, int size) {
        return findDeadTasksNewestFirst(page, size, true);
    }

    @Override
    public List<TaskDetails> findDeadTasksNewestFirst(int page, int size, boolean parameters) {
        int offset = offsetOf(page, size);
        return dataAccess(() -> this.store.findDeadNewestFirst(offset, size, parameters), "list dead tasks");
    }

    private static int offsetOf(int page, int size) {
        Assert.isTrue(page >= 0, "Page must not be negative");
        Assert.isTrue(size >= 1 && size <= MAX_PAGE_SIZE, () -> "Page size must be between 1 and " + MAX_PAGE_SIZE);
        long offset = (long) page * size;
        Assert.isTrue(offset <= Integer.MAX_VALUE, () -> "Page " + page + " of " + size + " tasks is beyond the last "
                + "page there can be");
        return (int) offset;
    }

    @Override
    public boolean requeueTask(long taskId) {
        StoredTask requeued;
        try {
            requeued = this.store.requeue(taskId, this.clock.millis());
        }
        catch (DuplicateKeyException ex) {
            throw new DelayTaskException("Task " + taskId + " cannot run again: a live task has its business key", ex);
        }
        catch (DataAccessException | TransactionException ex) {
            throw new DelayTaskException("Could not requeue task " + taskId, ex);
        }
        if (requeued == null) {
            return false;
        }
        // a live row again, as a new task's is
        this.transaction.afterCommit(List.of(requeued), () -> {
            if (withinWindow(requeued)) {
                this.handOff.schedule(requeued);
            }
        });
        return true;
    }

    @Override
    public int requeueDeadTasks(int taskType, int priority) {
        QueueId queue = NewTasks.queueOf(taskType, priority);
        int requeued = 0;
        long after = Long.MIN_VALUE;
        List<Long> page;
        do {
            try {
                page = this.store.findDeadIds(queue, after, REQUEUE_PAGE);
            }
            catch (DataAccessException ex) {
                throw new DelayTaskException("Could not read the dead tasks of queue " + queue, ex);
            }
            for (Long taskId : page) {
                try {
                    if (requeueTask(taskId)) {
                        requeued++;
                    }
                }
                catch (DelayTaskException ex) {
                    if (!(ex.getCause() instanceof DuplicateKeyException)) {
                        throw ex;
                    }
                    // a live task has its business key: it stays dead, and the others still run again
                    logger.warn(ex.getMessage());
                }
                after = taskId;
            }
        }
        while (page.size() == REQUEUE_PAGE);
        return requeued;
    }

    @Override
    public boolean rescheduleTask(long taskId, Instant executeTime) {
        Assert.notNull(executeTime, "Execute time must not be null");
        NewTasks.checkExecuteTime(executeTime.toEpochMilli());
        StoredTask moved = dataAccess(() -> this.store.reschedule(taskId, executeTime.toEpochMilli()),
                "reschedule task " + taskId);
        if (moved == null) {
            return false;
        }
        this.transaction.afterCommit(() -> moveInRedis(moved));
        return true;
    }

    /**
     * A task given a new time: due then in Redis, or out of Redis when that is well beyond the preload window. Just
     * beyond it, the task goes to Redis all the same: the feed may bring it in at any moment, and a removal made late
     * (Redis was slow, and the hand-off tried again) would take out what the feed brought, which it never brings again.
     */
    private void moveInRedis(StoredTask moved) {
        if (moved.executeTime() <= this.clock.millis() + this.settings.preloadWindow().toMillis()
                + MOVE_OUT_MARGIN_MILLIS) {
            this.handOff.schedule(moved);
        }
        else {
            this.handOff.moveOut(moved);
        }
    }

    @Override
    public DelayTask poll(int taskType, int priority) {
        QueueId queue = NewTasks.queueOf(taskType, priority);
        while (true) {
            Claims.Batch batch = this.claims.claim(queue, 1);
            if (batch.taken() == 0) {
                return null;
            }
            for (StoredTask task : batch.tasks()) {
                if (this.outcomes.complete(task, this.pollRedisHalf)) {
                    return task.toDelayTask();
                }
            }
        }
    }

    @Override
    public boolean poll(int taskType, int priority, Consumer<DelayTask> handler) {
        Assert.notNull(handler, "Handler must not be null");
        QueueId queue = NewTasks.queueOf(taskType, priority);
        while (true) {
            Claims.Batch batch = this.claims.claim(queue, 1);
            if (batch.taken() == 0) {
                return false;
            }
            if (!batch.tasks().isEmpty()) {
                StoredTask task = batch.tasks().get(0);
                try (TaskContextPropagator.Restored restored = this.contexts.restore(task.traceContext())) {
                    handler.accept(task.toDelayTask());
                }
                catch (RuntimeException | Error ex) {
                    // the retry's time in Redis before the caller polls again, unless Redis is slow
                    this.outcomes.fail(task, ex, this.settings.retryPolicy(),
                            this.pollRedisHalf.waitingUpTo(this.settings.redisHandOffTimeout()));
                    throw ex;
                }
                if (!this.outcomes.complete(task, this.pollRedisHalf)) {
                    logger.warn("Task " + task.taskId() + " was handled after its lease ran out; it may run again");
                }
                return true;
            }
        }
    }

    @Override
    public boolean pauseQueue(int taskType, int priority) {
        return this.pauses.pause(NewTasks.queueOf(taskType, priority));
    }

    @Override
    public boolean resumeQueue(int taskType, int priority) {
        return this.pauses.resume(NewTasks.queueOf(taskType, priority));
    }

    @Override
    public boolean isQueuePaused(int taskType, int priority) {
        return this.pauses.paused(NewTasks.queueOf(taskType, priority));
    }

    /**
     * Take the recurring schedules' calls to the given schedules: without, they fail saying what is missing.
     */
    public void setSchedules(Schedules schedules) {
        this.schedules = schedules;
    }

    @Override
    public boolean saveSchedule(TaskSchedule schedule) {
        return schedules().save(schedule);
    }

    @Override
    public boolean pauseSchedule(String name) {
        return schedules().pause(name);
    }

    @Override
    public boolean resumeSchedule(String name) {
        return schedules().resume(name);
    }

    @Override
    public boolean removeSchedule(String name) {
        return schedules().remove(name);
    }

    @Override
    public List<ScheduleDetails> findSchedules() {
        return schedules().findAll();
    }

    @Override
    public Optional<ScheduleDetails> findSchedule(String name) {
        return Optional.ofNullable(schedules().find(name));
    }

    private Schedules schedules() {
        Schedules schedules = this.schedules;
        if (schedules == null) {
            throw new IllegalStateException("This DelayTaskService was given no recurring schedules: a Schedules "
                    + "bean of the application's own does not reach it (see setSchedules)");
        }
        return schedules;
    }

    private boolean withinWindow(StoredTask task) {
        return task.executeTime()
                <= this.clock.millis() + this.settings.preloadWindow().toMillis() - HAND_OFF_MARGIN_MILLIS;
    }

    /**
     * New tasks due within the preload window go to Redis; later ones are left to the feed. Called with every
     * task created, once committed, so this is where they are counted.
     */
    private void enqueueNew(List<StoredTask> tasks) {
        Consumer<StoredTask> taken = handOffNew(tasks);
        for (StoredTask task : tasks) {
            // one wait for them all: they share a write
            if (dueSoon(task)) {
                taken.accept(task);
                return;
            }
        }
    }

    /**
     * Hand new tasks to Redis, without waiting for it.
     * @return what a caller of one of them does before it returns: a caller of a task due within about a second waits
     * for Redis (up to its bound), so that callers adding such tasks as fast as they can are held to the pace at which
     * Redis takes them, and none is put off by a backlog of writes that had time to spare; a caller of a task due
     * later returns at its commit, and the hand-off follows on its own thread
     */
    private Consumer<StoredTask> handOffNew(List<StoredTask> tasks) {
        Map<QueueId, Integer> added = new HashMap<>();
        List<StoredTask> due = new ArrayList<>(tasks.size());
        for (StoredTask task : tasks) {
            added.merge(task.queue(), 1, Integer::sum);
            if (withinWindow(task)) {
                due.add(task);
            }
        }
        added.forEach(this.events::added);
        Runnable taken = this.handOff.add(due);
        return (task) -> {
            if (dueSoon(task)) {
                taken.run();
            }
        };
    }

    private boolean dueSoon(StoredTask task) {
        return task.executeTime() <= this.clock.millis() + DUE_SOON_MILLIS;
    }

    @Override
    public void start() {
        this.running = true;
    }

    /**
     * Hand what the database stored to Redis while its connections are still open (they close later in the
     * lifecycle's stop, before {@link #destroy()}), waiting {@code delay-task.redis.hand-off-timeout} at most.
     */
    @Override
    public void stop() {
        this.handOff.flush();
        this.running = false;
    }

    @Override
    public boolean isRunning() {
        return this.running;
    }

    /**
     * After the listeners ({@link SmartLifecycle#DEFAULT_PHASE}), whose handlers may add tasks as they finish, and
     * before the wake-ups, which send what this hand-off announces.
     */
    @Override
    public int getPhase() {
        return DEFAULT_PHASE - 1;
    }

    /** Stop the thread that hands committed changes to Redis; what it still holds goes to the full reloads. */
    @Override
    public void destroy() {
        this.pollRedisHalf.close();
        this.transaction.close();
        this.handOff.close();
    }

    private static <T> T dataAccess(Supplier<T> action, String what) {
        try {
            return action.get();
        }
        catch (DataAccessException | TransactionException ex) {
            throw new DelayTaskException("Could not " + what, ex);
        }
    }

}
