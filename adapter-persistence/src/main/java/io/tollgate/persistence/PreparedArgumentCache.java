package io.tollgate.persistence;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Function;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.argument.Argument;
import org.jdbi.v3.core.argument.Arguments;
import org.jdbi.v3.core.argument.QualifiedArgumentFactory;
import org.jdbi.v3.core.config.ConfigRegistry;
import org.jdbi.v3.core.qualifier.QualifiedType;

/**
 * Remembers, for the plain value types our statements bind, how Jdbi binds them.
 *
 * <p>Each Jdbi statement works on its own copy of the configuration, and the copy's cache of
 * prepared argument factories starts empty; so for every statement and every type it binds,
 * Jdbi asks each registered factory in turn (twenty-odd) whether it handles the type. A
 * completed payment's statements bind dozens of arguments, and those walks were 4% of the
 * service's CPU under load (bench/profile.sh). Installed last, this factory is asked first: it
 * answers from a cache filled once per type with the answer of the factories registered before
 * it, in their order, so each value is bound by the same JDBC call as without it. Only these
 * plain types are cached, whose binding nothing in Tollgate configures per statement; every
 * other type, and every qualified one, goes down Jdbi's usual path.
 */
final class PreparedArgumentCache implements QualifiedArgumentFactory.Preparable {

  private static final Set<Class<?>> TYPES = Set.of(String.class, Long.class, long.class, Integer.class, int.class,
      Boolean.class, boolean.class, BigDecimal.class, Instant.class, UUID.class, byte[].class);

  private final List<QualifiedArgumentFactory> earlier;
  private final ConfigRegistry root;
  private final ConcurrentMap<QualifiedType<?>, Optional<Function<Object, Argument>>> prepared =
      new ConcurrentHashMap<>();

  private PreparedArgumentCache(List<QualifiedArgumentFactory> earlier, ConfigRegistry root) {
    this.earlier = earlier;
    this.root = root;
  }

  /** Registers the cache as the factory Jdbi asks first; call it after every other registration. */
  static void install(Jdbi jdbi) {
    List<QualifiedArgumentFactory> earlier = List.copyOf(jdbi.getConfig(Arguments.class).getFactories());
    jdbi.registerArgument(new PreparedArgumentCache(earlier, jdbi.getConfig()));
  }

  @Override
  public Optional<Function<Object, Argument>> prepare(QualifiedType<?> type, ConfigRegistry config) {
    if (!type.getQualifiers().isEmpty() || !(type.getType() instanceof Class<?> c) || !TYPES.contains(c)) {
      return Optional.empty();
    }
    return prepared.computeIfAbsent(type, this::prepareAsEarlierFactoriesWould);
  }

  /** As Jdbi's own lookup does: the first factory, in their order, that can prepare the type. */
  private Optional<Function<Object, Argument>> prepareAsEarlierFactoriesWould(QualifiedType<?> type) {
    for (QualifiedArgumentFactory factory : earlier) {
      if (factory instanceof QualifiedArgumentFactory.Preparable preparable) {
        Optional<Function<Object, Argument>> binder = preparable.prepare(type, root);
        if (binder.isPresent()) {
          return binder;
        }
      }
    }
    return Optional.empty();
  }

  @Override
  public Optional<Argument> build(QualifiedType<?> type, Object value, ConfigRegistry config) {
    return prepare(type, config).map(binder -> binder.apply(value));
  }

  /** The types the cache holds an answer for (tests). */
  Set<java.lang.reflect.Type> cached() {
    Set<java.lang.reflect.Type> types = new java.util.HashSet<>();
    prepared.forEach((type, binder) -> binder.ifPresent(b -> types.add(type.getType())));
    return types;
  }
}
