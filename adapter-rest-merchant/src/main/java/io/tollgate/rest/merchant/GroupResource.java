package io.tollgate.rest.merchant;

import com.fasterxml.jackson.databind.JsonNode;
import io.tollgate.application.port.in.GroupsUseCase;
import io.tollgate.application.port.in.GroupsUseCase.GroupView;
import io.tollgate.application.port.in.SubmittedItems;
import io.tollgate.domain.DomainException;
import io.tollgate.domain.Violation;
import io.tollgate.domain.group.GroupKind;
import io.tollgate.domain.group.Pan;
import io.tollgate.rest.common.Envelope;
import io.tollgate.rest.common.ParametersCheckedAfterAccess;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** BIN, e-mail, card, country and error-code groups: lists, one group's entries, add and delete. */
@Path("")
@Produces(MediaType.APPLICATION_JSON)
public final class GroupResource {

  private static final String ANY = "{collection: bin-groups|email-groups|card-groups|country-groups|error-code-groups}";
  /** One group of these is a page of its entries. */
  private static final String PAGED = "{collection: bin-groups|email-groups|card-groups}";
  /** One group of these comes whole, with its entries inline. */
  private static final String WHOLE = "{collection: country-groups|error-code-groups}";

  private static final Map<String, GroupKind> COLLECTIONS = Map.of(
      "bin-groups", GroupKind.BIN, "email-groups", GroupKind.EMAIL, "card-groups", GroupKind.CARD,
      "country-groups", GroupKind.COUNTRY, "error-code-groups", GroupKind.ERROR_CODE);
  private static final Map<GroupKind, String> ENTRY_PATHS = Map.of(
      GroupKind.BIN, "bins", GroupKind.EMAIL, "emails", GroupKind.CARD, "cards",
      GroupKind.COUNTRY, "countries", GroupKind.ERROR_CODE, "error-codes");

  private final GroupsUseCase groups;

  GroupResource(GroupsUseCase groups) {
    this.groups = groups;
  }

  @GET
  @Path(ANY)
  @ParametersCheckedAfterAccess
  public Envelope list(@PathParam("collection") String collection, @QueryParam("offset") String offset,
      @QueryParam("limit") String limit, @Context ContainerRequestContext request) {
    return Envelope.page(groups.list(BasicAuthFilter.user(request), COLLECTIONS.get(collection),
        Paging.request(request, offset, limit)).map(GroupResource::json));
  }

  @GET
  @Path(PAGED + "/{groupId}")
  @ParametersCheckedAfterAccess
  public Envelope entries(@PathParam("collection") String collection, @PathParam("groupId") String groupId,
      @QueryParam("offset") String offset, @QueryParam("limit") String limit,
      @Context ContainerRequestContext request) {
    long id = groupId(groupId);
    return Envelope.page(groups.entries(BasicAuthFilter.user(request), COLLECTIONS.get(collection), id,
        Paging.request(request, offset, limit)));
  }

  /**
   * The spec: "returns the group with its countries" (its error codes), with no pagination, as
   * CONTRACT section 7 lists it: a handful of entries, not pages. offset and limit are no
   * parameters of this path, so they are ignored as any unknown query parameter is (as on
   * GET /shop-groups/{id}), not checked as a list's are.
   */
  @GET
  @Path(WHOLE + "/{groupId}")
  public Envelope group(@PathParam("collection") String collection, @PathParam("groupId") String groupId,
      @Context ContainerRequestContext request) {
    long id = groupId(groupId);
    return Envelope.ok(json(groups.group(BasicAuthFilter.user(request), COLLECTIONS.get(collection), id)));
  }

  @POST
  @Path(ANY + "/{groupId}/{entries}")
  public Response add(@PathParam("collection") String collection, @PathParam("groupId") String groupId,
      @PathParam("entries") String entries, byte[] body, @Context ContainerRequestContext request) {
    GroupKind kind = kindWithEntries(collection, entries);
    long id = groupId(groupId);
    groups.add(BasicAuthFilter.user(request), kind, id, values(kind, body, request));
    return Response.status(201).build();
  }

  @DELETE
  @Path(ANY + "/{groupId}/{entries}")
  public Response remove(@PathParam("collection") String collection, @PathParam("groupId") String groupId,
      @PathParam("entries") String entries, byte[] body, @Context ContainerRequestContext request) {
    GroupKind kind = kindWithEntries(collection, entries);
    long id = groupId(groupId);
    groups.remove(BasicAuthFilter.user(request), kind, id, values(kind, body, request));
    return Response.noContent().build();
  }

  static Map<String, Object> json(GroupView v) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", v.group().id());
    if (v.group().kind() == GroupKind.BIN) {
      m.put("merchantId", v.group().merchantId().value());
      m.put("merchantName", v.group().merchantName());
      m.put("groupName", v.group().name());
      return m;
    }
    m.put("name", v.group().name());
    m.put("merchantId", v.group().merchantId().value());
    m.put("merchantName", v.group().merchantName());
    // entries left out are those the user may not read (an error-code group's, without SHOP_EDIT)
    if (v.group().kind() == GroupKind.COUNTRY && v.entries() != null) {
      m.put("countries", v.entries());
    } else if (v.group().kind() == GroupKind.ERROR_CODE && v.entries() != null) {
      m.put("errorCodes", v.entries());
    }
    return m;
  }

  private static GroupKind kindWithEntries(String collection, String entries) {
    GroupKind kind = COLLECTIONS.get(collection);
    if (!ENTRY_PATHS.get(kind).equals(entries)) {
      throw new DomainException.NotFound("Not Found");
    }
    return kind;
  }

  private static long groupId(String raw) {
    try {
      // ASCII digits only: Long.parseLong also reads other scripts' digits
      long id = io.tollgate.rest.common.QueryParams.isAsciiInteger(raw) ? Long.parseLong(raw) : 0;
      if (id > 0) {
        return id;
      }
    } catch (NumberFormatException e) {
      // falls through to 404
    }
    throw new DomainException.NotFound("Group not found");
  }

  /**
   * The request's entry array. Neither a body without one (the 400 that says what was expected)
   * nor items that are not strings are refused here: the use case answers them, in one 400 with
   * the entries its rules refuse, once the group is found to be the user's to edit.
   */
  private static SubmittedItems<String> values(GroupKind kind, byte[] body, ContainerRequestContext request) {
    String field = kind.entriesField();
    JsonNode array;
    try {
      array = EditBody.read(request, body).get(field);
    } catch (DomainException.Invalid | WebApplicationException unreadable) {
      return SubmittedItems.unreadable(unreadable);
    }
    if (array == null || array.isNull() || !array.isArray() || array.isEmpty()) {
      String given = array == null || array.isNull() ? null
          : kind == GroupKind.CARD ? Pan.maskCardField(array.toString()) : Pan.maskForDisplay(array.toString());
      return SubmittedItems.unreadable(new DomainException.Invalid("Invalid " + field,
          List.of(Violation.of(field, "must be a non-empty array", given == null ? null : abbreviate(given)))));
    }
    List<String> values = new ArrayList<>();
    Map<Integer, String> wrongType = new HashMap<>();
    for (int i = 0; i < array.size(); i++) {
      JsonNode item = array.get(i);
      if (item.isTextual()) {
        values.add(item.asText());
      } else {
        values.add(null);
        // masked before it is cut, so that no cut leaves the first digits of a card number in clear
        wrongType.put(i, kind == GroupKind.CARD ? Pan.maskCardField(item.asText())
            : abbreviate(Pan.maskForDisplay(item.toString())));
      }
    }
    return new SubmittedItems<>(values, wrongType);
  }

  private static String abbreviate(String s) {
    return s.length() > 200 ? s.substring(0, 200) + "…" : s;
  }
}
