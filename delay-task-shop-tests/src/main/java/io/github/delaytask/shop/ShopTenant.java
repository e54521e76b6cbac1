package io.github.delaytask.shop;

/**
 * The tenant of the current thread, as the shop's request filter sets it.
 */
public final class ShopTenant {

    private static final ThreadLocal<Long> CURRENT = new ThreadLocal<>();

    private ShopTenant() {
    }

    public static Long current() {
        return CURRENT.get();
    }

    public static void set(Long tenant) {
        if (tenant != null) {
            CURRENT.set(tenant);
        }
        else {
            CURRENT.remove();
        }
    }

}
