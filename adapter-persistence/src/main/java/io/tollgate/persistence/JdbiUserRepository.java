package io.tollgate.persistence;

import io.tollgate.application.port.out.UserRepository;
import io.tollgate.domain.shop.MerchantId;
import io.tollgate.domain.user.MerchantUser;
import io.tollgate.domain.user.Permission;
import java.sql.Array;
import java.sql.SQLException;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.mapper.RowMapper;

final class JdbiUserRepository implements UserRepository {

  private final Jdbi jdbi;

  JdbiUserRepository(Jdbi jdbi) {
    this.jdbi = jdbi;
  }

  @Override
  public Optional<MerchantUser> create(MerchantId merchant, String email, String passwordHash,
      Set<Permission> permissions, Long shopGroup, Instant now) {
    String[] names = permissions.stream().map(Enum::name).sorted().toArray(String[]::new);
    return jdbi.withHandle(h -> h.createQuery("""
            INSERT INTO merchant_users (merchant_id, email, password_hash, permissions, shop_group_id, created)
            VALUES (:merchant, :email, :hash, :permissions, :shopGroup, :now)
            ON CONFLICT (email) DO NOTHING
            RETURNING id, (SELECT name FROM merchants WHERE id = :merchant) AS merchant_name
            """)
        .bind("merchant", merchant.value()).bind("email", email).bind("hash", passwordHash)
        .bind("permissions", names).bind("shopGroup", shopGroup).bind("now", now)
        .map((rs, ctx) -> new MerchantUser(rs.getLong("id"), merchant, rs.getString("merchant_name"), email, permissions,
            shopGroup))
        .findOne());
  }

  private static final String USER_SELECT = """
      SELECT u.id, u.merchant_id, m.name AS merchant_name, u.email, u.password_hash, u.permissions, u.disabled,
             u.shop_group_id
      FROM merchant_users u JOIN merchants m ON m.id = u.merchant_id
      """;

  private static final RowMapper<StoredUser> STORED_USER = (rs, ctx) -> new StoredUser(
      new MerchantUser(rs.getLong("id"), new MerchantId(rs.getLong("merchant_id")), rs.getString("merchant_name"),
          rs.getString("email"), permissions(rs.getArray("permissions")), rs.getObject("shop_group_id", Long.class)),
      rs.getString("password_hash"), rs.getBoolean("disabled"));

  @Override
  public Optional<StoredUser> findByEmail(String email) {
    return jdbi.withHandle(h -> h.createQuery(USER_SELECT + " WHERE u.email = :email")
        .bind("email", email).map(STORED_USER).findOne());
  }

  @Override
  public List<StoredUser> usersOf(MerchantId merchant) {
    return jdbi.withHandle(h -> h.createQuery(USER_SELECT + " WHERE u.merchant_id = :merchant ORDER BY u.email")
        .bind("merchant", merchant.value()).map(STORED_USER).list());
  }

  @Override
  public boolean setDisabled(String email, boolean disabled) {
    return update("UPDATE merchant_users SET disabled = :value WHERE email = :email", email, disabled);
  }

  @Override
  public boolean setPermissions(String email, Set<Permission> permissions) {
    return update("UPDATE merchant_users SET permissions = :value WHERE email = :email", email,
        permissions.stream().map(Enum::name).sorted().toArray(String[]::new));
  }

  @Override
  public boolean setShopGroup(String email, Long shopGroup) {
    return jdbi.withHandle(h -> h.createUpdate("UPDATE merchant_users SET shop_group_id = :value WHERE email = :email")
        .bind("email", email).bind("value", shopGroup).execute()) == 1;
  }

  @Override
  public boolean setPasswordHash(String email, String passwordHash) {
    return update("UPDATE merchant_users SET password_hash = :value WHERE email = :email", email, passwordHash);
  }

  private boolean update(String sql, String email, Object value) {
    return jdbi.withHandle(h -> h.createUpdate(sql).bind("email", email).bind("value", value).execute()) == 1;
  }

  private static Set<Permission> permissions(Array array) throws SQLException {
    Set<Permission> set = EnumSet.noneOf(Permission.class);
    for (String name : (String[]) array.getArray()) {
      set.add(Permission.valueOf(name));
    }
    return set;
  }
}
