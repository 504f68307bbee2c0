package io.tollgate.bootstrap;

import io.tollgate.application.port.out.PaymentProcessor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.function.BiPredicate;

/**
 * A terminal that passes every call on to another but those {@code fails} picks (by the method's
 * name and its arguments), which it answers as a terminal that did not answer in time: the read
 * timed out, and nobody knows whether it acted.
 */
final class UnansweringTerminal {

  private UnansweringTerminal() {}

  static PaymentProcessor around(PaymentProcessor terminal, BiPredicate<String, Object[]> fails) {
    return (PaymentProcessor) Proxy.newProxyInstance(UnansweringTerminal.class.getClassLoader(),
        new Class<?>[] {PaymentProcessor.class}, (proxy, method, args) -> {
          if (fails.test(method.getName(), args)) {
            throw new IllegalStateException("the terminal did not answer " + method.getName() + " in time",
                new java.net.SocketTimeoutException("Read timed out"));
          }
          try {
            return method.invoke(terminal, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
  }
}
