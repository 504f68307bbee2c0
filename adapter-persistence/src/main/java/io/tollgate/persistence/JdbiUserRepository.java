package io.tollgate.persistence;

import io.tollgate.application.port.out.UserRepository;
import io.tollgate.domain.shop.MerchantId;
import io.tollgate.domain.user.MerchantUser;
import io.tollgate.domain.user.Permission;
import java.sql.Array;
import java.sql.SQLException;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import org.jdbi.v3.core.Jdbi;

final class JdbiUserRepository implements UserRepository {

  private final Jdbi jdbi;

  JdbiUserRepository(Jdbi jdbi) {
    this.jdbi = jdbi;
  }

  @Override
  public Optional<MerchantUser> create(MerchantId merchant, String email, String passwordHash,
      Set<Permission> permissions, Instant now) {
    String[] names = permissions.stream().map(Enum::name).sorted().toArray(String[]::new);
    return jdbi.withHandle(h -> h.createQuery("""
            INSERT INTO merchant_users (merchant_id, email, password_hash, permissions, created)
            VALUES (:merchant, :email, :hash, :permissions, :now)
            ON CONFLICT (email) DO NOTHING
            RETURNING id
            """)
        .bind("merchant", merchant.value()).bind("email", email).bind("hash", passwordHash)
        .bind("permissions", names).bind("now", now)
        .mapTo(Long.class).findOne()
        .map(id -> new MerchantUser(id, merchant, email, permissions)));
  }

  @Override
  public Optional<StoredUser> findByEmail(String email) {
    return jdbi.withHandle(h -> h.createQuery("""
            SELECT id, merchant_id, email, password_hash, permissions FROM merchant_users WHERE email = :email
            """)
        .bind("email", email)
        .map((rs, ctx) -> new StoredUser(new MerchantUser(rs.getLong("id"), new MerchantId(rs.getLong("merchant_id")),
            rs.getString("email"), permissions(rs.getArray("permissions"))), rs.getString("password_hash")))
        .findOne());
  }

  private static Set<Permission> permissions(Array array) throws SQLException {
    Set<Permission> set = EnumSet.noneOf(Permission.class);
    for (String name : (String[]) array.getArray()) {
      set.add(Permission.valueOf(name));
    }
    return set;
  }
}
