package io.tollgate.rest.common;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * On a resource method that settles whether the user may read what it asks for (a 404 for a
 * record it may not see, a 403 for a missing permission) before it refuses bad query parameters
 * (a 400). A parameter it reads given more than once is then not refused before the method runs,
 * but handed to it through {@link QueryParams#of}, to be refused with the other bad parameters
 * once the read is allowed. The method must read its parameters with {@link QueryParams#of}.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface ParametersCheckedAfterAccess {}
