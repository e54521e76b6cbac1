package io.github.delaytask.store.mybatis;

import com.baomidou.mybatisplus.core.mapper.BaseMapper;

/**
 * Mapper of {@code taskinfo}. Public because MyBatis proxies it.
 */
public interface TaskInfoMapper extends BaseMapper<TaskInfo> {
}
