package io.tollgate.bootstrap;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Dependencies point inward: adapters -> application -> domain; adapters never see each other. */
class DependencyRuleTest {

  static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    classes = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("io.tollgate");
  }

  @Test
  void layers_depend_inward_only() {
    layeredArchitecture().consideringOnlyDependenciesInLayers()
        .layer("domain").definedBy("io.tollgate.domain..")
        .layer("application").definedBy("io.tollgate.application..")
        .layer("persistence").definedBy("io.tollgate.persistence..")
        .layer("processor").definedBy("io.tollgate.processor..")
        .layer("restCommon").definedBy("io.tollgate.rest.common..")
        .layer("gateway").definedBy("io.tollgate.rest.gateway..")
        .layer("webhook").definedBy("io.tollgate.webhook..")
        .layer("merchant").definedBy("io.tollgate.rest.merchant..")
        .layer("bootstrap").definedBy("io.tollgate.bootstrap..")
        .whereLayer("bootstrap").mayNotBeAccessedByAnyLayer()
        .whereLayer("gateway").mayOnlyBeAccessedByLayers("bootstrap")
        .whereLayer("persistence").mayOnlyBeAccessedByLayers("bootstrap")
        .whereLayer("processor").mayOnlyBeAccessedByLayers("bootstrap")
        .whereLayer("webhook").mayOnlyBeAccessedByLayers("bootstrap")
        .whereLayer("merchant").mayOnlyBeAccessedByLayers("bootstrap")
        .whereLayer("restCommon").mayOnlyBeAccessedByLayers("gateway", "merchant", "bootstrap")
        .whereLayer("application").mayOnlyBeAccessedByLayers("persistence", "processor", "restCommon", "gateway",
            "merchant", "webhook", "bootstrap")
        .whereLayer("domain").mayOnlyBeAccessedByLayers("application", "persistence", "processor", "restCommon",
            "gateway", "merchant", "webhook", "bootstrap")
        .ensureAllClassesAreContainedInArchitecture()
        .check(classes);
  }

  @Test
  void the_domain_uses_the_jdk_only() {
    noClasses().that().resideInAPackage("io.tollgate.domain..")
        .should().dependOnClassesThat().resideOutsideOfPackages("io.tollgate.domain..", "java..")
        .check(classes);
  }

  @Test
  void the_application_knows_no_framework() {
    noClasses().that().resideInAPackage("io.tollgate.application..")
        .should().dependOnClassesThat().resideInAnyPackage("jakarta..", "org.jdbi..", "org.eclipse..",
            "com.fasterxml..", "org.glassfish..", "com.zaxxer..", "org.postgresql..")
        .check(classes);
  }
}
