package io.github.delaytask.store.mybatis;

import com.baomidou.mybatisplus.annotation.InterceptorIgnore;
import com.baomidou.mybatisplus.core.mapper.BaseMapper;

/**
 * Mapper of {@code taskinfo_logs}. Public because MyBatis proxies it.
 * <p>
 * Its statements are the starter's own. The application's MyBatis-Plus plugins see every mapper of its
 * configuration, and theirs are written for the application's tables: a tenant line or a data permission would add
 * columns the starter's tables lack, and ask for a tenant on the starter's own threads; a dynamic table name would
 * point the statements elsewhere. So each plugin that honours {@code @InterceptorIgnore} leaves them alone, while
 * the optimistic lock, which has no switch here, keeps checking versions.
 */
@InterceptorIgnore(tenantLine = "true", dataPermission = "true", dynamicTableName = "true", blockAttack = "true",
        illegalSql = "true")
public interface TaskInfoLogMapper extends BaseMapper<TaskInfoLog> {
}
