package io.github.delaytask.store.mybatis;

import com.baomidou.mybatisplus.core.mapper.BaseMapper;

/**
 * Mapper of {@code taskinfo_logs}. Public because MyBatis proxies it.
 */
public interface TaskInfoLogMapper extends BaseMapper<TaskInfoLog> {
}
