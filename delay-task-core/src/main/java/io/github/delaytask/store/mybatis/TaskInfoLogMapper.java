package io.github.delaytask.store.mybatis;

import com.baomidou.mybatisplus.core.mapper.BaseMapper;

/**
 * Mapper of {@code taskinfo_logs}. Public because MyBatis proxies it.
 * <p>
 * It lives in the starter's own MyBatis configuration ({@link MybatisSetup}), out of reach of the application's
 * plugins and global settings.
 */
public interface TaskInfoLogMapper extends BaseMapper<TaskInfoLog> {
}
