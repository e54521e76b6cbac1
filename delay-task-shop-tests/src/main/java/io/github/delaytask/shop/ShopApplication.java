package io.github.delaytask.shop;

import com.baomidou.mybatisplus.extension.plugins.MybatisPlusInterceptor;
import com.baomidou.mybatisplus.extension.plugins.handler.TenantLineHandler;
import com.baomidou.mybatisplus.extension.plugins.inner.BlockAttackInnerInterceptor;
import com.baomidou.mybatisplus.extension.plugins.inner.PaginationInnerInterceptor;
import com.baomidou.mybatisplus.extension.plugins.inner.TenantLineInnerInterceptor;
import io.github.delaytask.TaskContextPropagator;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.LongValue;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * A MyBatis-Plus shop's application: dynamic-datasource routes between a {@code master} and a {@code slave}, its
 * services switch with {@code @DS}, and its {@link MybatisPlusInterceptor} has a strict tenant line (it throws when
 * the thread has no tenant), pagination and block attack. Its tasks carry the tenant of the thread that adds them.
 */
@SpringBootApplication
public class ShopApplication {

    public static void main(String[] args) {
        SpringApplication.run(ShopApplication.class, args);
    }

    @Bean
    MybatisPlusInterceptor mybatisPlusInterceptor() {
        MybatisPlusInterceptor interceptor = new MybatisPlusInterceptor();
        interceptor.addInnerInterceptor(new TenantLineInnerInterceptor(new TenantLineHandler() {

            @Override
            public Expression getTenantId() {
                Long tenant = ShopTenant.current();
                if (tenant == null) {
                    throw new IllegalStateException("no tenant");
                }
                return new LongValue(tenant);
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
