package io.github.delaytask.store.mybatis;

import com.baomidou.mybatisplus.annotation.IdType;
import com.baomidou.mybatisplus.annotation.TableId;
import com.baomidou.mybatisplus.annotation.TableName;
import com.baomidou.mybatisplus.annotation.Version;

/**
 * A row of {@code taskinfo_logs}: every task, with its status. Public because MyBatis-Plus reads it by reflection.
 */
@TableName(value = "taskinfo_logs", keepGlobalPrefix = true)
public class TaskInfoLog {

    @TableId(type = IdType.INPUT)
    private Long taskId;

    private Long executeTime;

    private byte[] parameters;

    private Integer priority;

    private Integer taskType;

    @Version
    private Integer version;

    private Integer status;

    private Integer attempts;

    private String lastError;

    private String bizKey;

    public Long getTaskId() {
        return this.taskId;
    }

    public void setTaskId(Long taskId) {
        this.taskId = taskId;
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

    public Integer getPriority() {
        return this.priority;
    }

    public void setPriority(Integer priority) {
        this.priority = priority;
    }

    public Integer getTaskType() {
        return this.taskType;
    }

    public void setTaskType(Integer taskType) {
        this.taskType = taskType;
    }

    public Integer getVersion() {
        return this.version;
    }

    public void setVersion(Integer version) {
        this.version = version;
    }

    public Integer getStatus() {
        return this.status;
    }

    public void setStatus(Integer status) {
        this.status = status;
    }

    public Integer getAttempts() {
        return this.attempts;
    }

    public void setAttempts(Integer attempts) {
        this.attempts = attempts;
    }

    public String getLastError() {
        return this.lastError;
    }

    public void setLastError(String lastError) {
        this.lastError = lastError;
    }

    public String getBizKey() {
        return this.bizKey;
    }

    public void setBizKey(String bizKey) {
        this.bizKey = bizKey;
    }

}
