package io.github.delaytask.store.mybatis;

import com.baomidou.mybatisplus.annotation.IdType;
import com.baomidou.mybatisplus.annotation.TableField;
import com.baomidou.mybatisplus.annotation.TableId;
import com.baomidou.mybatisplus.annotation.TableName;
import com.baomidou.mybatisplus.annotation.Version;

/**
 * A row of {@code taskinfo}: a task not yet finished. Public because MyBatis-Plus reads it by reflection.
 */
@TableName(value = "taskinfo", keepGlobalPrefix = true)
public class TaskInfo {

    @TableId(type = IdType.ASSIGN_ID)
    private Long taskId;

    private Integer taskType;

    private Integer priority;

    private Long executeTime;

    private byte[] parameters;

    @Version
    private Integer version;

    private Integer attempts;

    private Long leaseUntil;

    private String bizKey;

    /** Written only when set (a requeue that has it), never read through the entity: the column is optional. */
    @TableField(select = false)
    private String traceContext;

    public Long getTaskId() {
        return this.taskId;
    }

    public void setTaskId(Long taskId) {
        this.taskId = taskId;
    }

    public Integer getTaskType() {
        return this.taskType;
    }

    public void setTaskType(Integer taskType) {
        this.taskType = taskType;
    }

    public Integer getPriority() {
        return this.priority;
    }

    public void setPriority(Integer priority) {
        this.priority = priority;
    }

    public Long getExecuteTime() {
        return this.executeTime;
    }

    public void setExecuteTime(Long executeTime) {
        this.executeTime = executeTime;
    }

    public byte[] getParameters() {
        return this.parameters;
    }

    public void setParameters(byte[] parameters) {
        this.parameters = parameters;
    }

    public Integer getVersion() {
        return this.version;
    }

    public void setVersion(Integer version) {
        this.version = version;
    }

    public Integer getAttempts() {
        return this.attempts;
    }

    public void setAttempts(Integer attempts) {
        this.attempts = attempts;
    }

    public Long getLeaseUntil() {
        return this.leaseUntil;
    }

    public void setLeaseUntil(Long leaseUntil) {
        this.leaseUntil = leaseUntil;
    }

    public String getBizKey() {
        return this.bizKey;
    }

    public void setBizKey(String bizKey) {
        this.bizKey = bizKey;
    }

    public String getTraceContext() {
        return this.traceContext;
    }

    public void setTraceContext(String traceContext) {
        this.traceContext = traceContext;
    }

}
