package io.tollgate.rest.merchant;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tollgate.domain.DomainException;
import io.tollgate.rest.common.Json;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.container.ContainerRequestContext;

/**
 * The JSON object of an edit request. It must be declared as JSON: a browser sends a cross-site
 * form or a typeless body without asking first, with the Basic credentials it keeps for this
 * API, but never a JSON one.
 */
final class EditBody {

  private EditBody() {}

  /**
   * @throws WebApplicationException a 415 for a body not declared as JSON
   * @throws DomainException.Invalid a 400 for a body that is no JSON object, or none at all
   */
  static ObjectNode read(ContainerRequestContext request, byte[] body) {
    if (body != null && body.length > 0 && !Json.isJsonType(request.getHeaderString("Content-Type"))) {
      throw new WebApplicationException(415);
    }
    return Json.parseObject(body);
  }
}
