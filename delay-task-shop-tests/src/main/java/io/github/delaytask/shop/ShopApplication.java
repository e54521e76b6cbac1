package io.github.delaytask.shop;

import com.baomidou.mybatisplus.extension.plugins.MybatisPlusInterceptor;
import com.baomidou.mybatisplus.extension.plugins.handler.TenantLineHandler;
import com.baomidou.mybatisplus.extension.plugins.inner.BlockAttackInnerInterceptor;
import com.baomidou.mybatisplus.extension.plugins.inner.PaginationInnerInterceptor;
import com.baomidou.mybatisplus.extension.plugins.inner.TenantLineInnerInterceptor;
import io.github.delaytask.TaskContextPropagator;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.LongValue;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * A MyBatis-Plus shop's application: dynamic-datasource routes between a {@code master} and a {@code slave}, its
 * services switch with {@code @DS}, and its {@link MybatisPlusInterceptor} has a tenant line, pagination and block
 * attack. The tenant line's handler is strict (it throws when the thread has no tenant), or with
 * {@code shop.tenant-handler=default} falls back to a default tenant, the two shapes such handlers take. Its tasks
 * carry the tenant of the thread that adds them.
 */
@SpringBootApplication
public class ShopApplication {

    public static void main(String[] args) {
        SpringApplication.run(ShopApplication.class, args);
    }

    /** The tenant of requests that carry none, where the handler falls back to one. */
    static final long DEFAULT_TENANT = 1;

    @Bean
    MybatisPlusInterceptor mybatisPlusInterceptor(@Value("${shop.tenant-handler:strict}") String tenantHandler) {
        boolean strict = !tenantHandler.equals("default");
        MybatisPlusInterceptor interceptor = new MybatisPlusInterceptor();
        interceptor.addInnerInterceptor(new TenantLineInnerInterceptor(new TenantLineHandler() {

            @Override
            public Expression getTenantId() {
                Long tenant = ShopTenant.current();
                if (tenant == null && strict) {
                    throw new IllegalStateException("no tenant");
                }
                return new LongValue((tenant != null) ? tenant : DEFAULT_TENANT);
            }

        }));
        interceptor.addInnerInterceptor(new PaginationInnerInterceptor());
        interceptor.addInnerInterceptor(new BlockAttackInnerInterceptor());
        return interceptor;
    }

    /** The tenant of the thread that adds a task is the tenant its handler runs for. */
    @Bean
    TaskContextPropagator tenantPropagator() {
        return TaskContextPropagator.of("tenant",
                () -> (ShopTenant.current() != null) ? ShopTenant.current().toString() : null,
                (tenant) -> ShopTenant.set(Long.valueOf(tenant)), () -> ShopTenant.set(null));
    }

}
