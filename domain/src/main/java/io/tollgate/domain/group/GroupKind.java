package io.tollgate.domain.group;

import io.tollgate.domain.user.Permission;

/**
 * The kinds of entry group a merchant keeps, with the permission that edits each (CONTRACT
 * section 7) and the name of the array their edit requests carry.
 */
public enum GroupKind {
  BIN("bins", Permission.SHOP_EDIT, false),
  EMAIL("emails", Permission.SHOP_EDIT, false),
  CARD("cardNumbers", Permission.SHOP_EDIT, false),
  COUNTRY("countries", Permission.SETTINGS_EDIT, false),
  ERROR_CODE("errorCodes", Permission.SHOP_EDIT, true);

  private final String entriesField;
  private final Permission editPermission;
  private final boolean viewNeedsEditPermission;

  GroupKind(String entriesField, Permission editPermission, boolean viewNeedsEditPermission) {
    this.entriesField = entriesField;
    this.editPermission = editPermission;
    this.viewNeedsEditPermission = viewNeedsEditPermission;
  }

  /** The JSON array of an add or delete request: {@code bins}, {@code emails}, ... */
  public String entriesField() {
    return entriesField;
  }

  public Permission editPermission() {
    return editPermission;
  }

  /** Reading one group's entries needs the edit permission too (error-code groups). */
  public boolean viewNeedsEditPermission() {
    return viewNeedsEditPermission;
  }
}
