package io.tollgate.application.port.out;

/** A deliberately slow password hash (the merchant API's passwords). */
public interface PasswordHasher {

  String hash(String password);

  boolean verify(String password, String hash);
}
