package io.github.delaytask.autoconfigure.pluginhost;

import com.baomidou.mybatisplus.core.mapper.BaseMapper;
import org.apache.ibatis.annotations.Mapper;

/**
 * The host application's own mapper, under every plugin of its {@code MybatisPlusInterceptor}.
 */
@Mapper
public interface HostOrderMapper extends BaseMapper<HostOrder> {

}
