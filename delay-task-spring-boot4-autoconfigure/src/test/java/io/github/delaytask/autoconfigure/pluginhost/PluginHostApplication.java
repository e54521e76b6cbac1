package io.github.delaytask.autoconfigure.pluginhost;

import java.util.Set;

import com.baomidou.mybatisplus.extension.plugins.MybatisPlusInterceptor;
import com.baomidou.mybatisplus.extension.plugins.handler.MultiDataPermissionHandler;
import com.baomidou.mybatisplus.extension.plugins.handler.TenantLineHandler;
import com.baomidou.mybatisplus.extension.plugins.inner.BlockAttackInnerInterceptor;
import com.baomidou.mybatisplus.extension.plugins.inner.DataPermissionInterceptor;
import com.baomidou.mybatisplus.extension.plugins.inner.DynamicTableNameInnerInterceptor;
import com.baomidou.mybatisplus.extension.plugins.inner.IllegalSQLInnerInterceptor;
import com.baomidou.mybatisplus.extension.plugins.inner.PaginationInnerInterceptor;
import com.baomidou.mybatisplus.extension.plugins.inner.TenantLineInnerInterceptor;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.schema.Table;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A host application as MyBatis-Plus shops write them: one {@link MybatisPlusInterceptor} with tenant line, data
 * permission, dynamic table name, pagination, illegal-SQL and block-attack plugins, and a mapper of its own found by
 * MyBatis-Plus's automatic {@code @Mapper} scanning. Its handlers know only its own tables, as real ones do: the
 * tenant handler ignores only the application's global table, the data-permission handler restricts every table to
 * the departments of the user, and the table-name handler gives every table the environment's suffix.
 * <p>
 * {@code host.tenant-handler} chooses the tenant handler's shape when no tenant is set, as on the starter's own
 * threads: {@code default} (tenant 1) or {@code strict} (it throws). {@code host.illegal-sql=false} leaves the
 * illegal-SQL plugin out, whose index check reads the database's metadata under the names as written: shops turn it
 * on against MySQL, and H2 keeps unquoted names in upper case.
 */
@Configuration(proxyBeanMethods = false)
@AutoConfigurationPackage
public class PluginHostApplication {

    /** The tenant used when none is set, by the {@code default} tenant handler. */
    public static final long DEFAULT_TENANT = 1;

    /** Departments the data permission lets the application see. */
    public static final String VISIBLE_DEPARTMENTS = "10, 20";

    /** What the table-name handler appends to every table's name. */
    public static final String TABLE_SUFFIX = "_t";

    @Bean
    public MybatisPlusInterceptor mybatisPlusInterceptor(@Value("${host.tenant-handler}") String tenantHandler,
            @Value("${host.illegal-sql:true}") boolean illegalSql) {
        MybatisPlusInterceptor interceptor = new MybatisPlusInterceptor();
        interceptor.addInnerInterceptor(new TenantLineInnerInterceptor(tenantLine("strict".equals(tenantHandler))));
        interceptor.addInnerInterceptor(new DataPermissionInterceptor(departments()));
        interceptor.addInnerInterceptor(new DynamicTableNameInnerInterceptor((sql, table) -> table + TABLE_SUFFIX));
        interceptor.addInnerInterceptor(new PaginationInnerInterceptor());
        if (illegalSql) {
            interceptor.addInnerInterceptor(new IllegalSQLInnerInterceptor());
        }
        interceptor.addInnerInterceptor(new BlockAttackInnerInterceptor());
        return interceptor;
    }

    private static TenantLineHandler tenantLine(boolean strict) {
        Set<String> globalTables = Set.of("host_setting");
        return new TenantLineHandler() {

            @Override
            public Expression getTenantId() {
                Long tenant = HostTenant.current();
                if (tenant == null && strict) {
                    throw new IllegalStateException("no tenant");
                }
                return new LongValue((tenant != null) ? tenant : DEFAULT_TENANT);
            }

            @Override
            public boolean ignoreTable(String tableName) {
                return globalTables.contains(tableName);
            }

        };
    }

    private static MultiDataPermissionHandler departments() {
        return (Table table, Expression where, String mappedStatementId) -> {
            // qualified by an alias only: the table's name may be rewritten by the table-name plugin after this one
            String column = ((table.getAlias() != null) ? table.getAlias().getName() + "." : "") + "dept_id";
            try {
                return CCJSqlParserUtil.parseCondExpression(column + " IN (" + VISIBLE_DEPARTMENTS + ")");
            }
            catch (JSQLParserException ex) {
                throw new IllegalStateException(ex);
            }
        };
    }

}
