package io.github.delaytask.shop;

import com.baomidou.mybatisplus.core.mapper.BaseMapper;
import org.apache.ibatis.annotations.Mapper;

/**
 * The shop's own mapper, which its tenant line rewrites: found by MyBatis's scan of the application's package.
 */
@Mapper
public interface ShopOrderMapper extends BaseMapper<ShopOrder> {

}
