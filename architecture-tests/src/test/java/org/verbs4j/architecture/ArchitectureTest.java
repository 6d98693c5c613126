package org.verbs4j.architecture;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noFields;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.AddressHandle;
import org.verbs4j.CompletionChannel;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.Device;
import org.verbs4j.MemoryRegion;
import org.verbs4j.MemoryWindow;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QueuePair;
import org.verbs4j.SharedReceiveQueue;
import org.verbs4j.ThreadDomain;
import org.verbs4j.VerbsObject;
import org.verbs4j.VerbsException;
import org.verbs4j.WrSession;
import org.verbs4j.spi.VerbsProvider;
import org.verbs4j.spi.support.AbstractVerbsObject;
import org.verbs4j.spi.support.AbstractWrSession;

/** The module boundaries of DESIGN.md, checked on the compiled main classes of every module. */
@DisplayName("Architecture rules of DESIGN.md")
class ArchitectureTest {
    /** The API alone has more than this many classes, so a smaller import means the class path is wrong. */
    private static final int MINIMUM_IMPORTED_CLASSES = 50;

    /** Each module folder with sources, and the package its classes must appear under in the import. */
    private static final Map<String, String> MODULE_PACKAGES = Map.of(
            "provider-emulated", "org.verbs4j.provider.emulated",
            "provider-native-common", "org.verbs4j.provider.nativecommon",
            "provider-ffm", "org.verbs4j.provider.ffm",
            "provider-jnr", "org.verbs4j.provider.jnr",
            "tck", "org.verbs4j.tck",
            "tools", "org.verbs4j.tools");

    private static final String NATIVE_COMMON = "org.verbs4j.provider.nativecommon..";

    /** The emulated provider's packages, top down: each may use only those below it. */
    private static final String EMULATED = "org.verbs4j.provider.emulated";
    private static final String EMULATED_CM = EMULATED + ".cm..";
    private static final String EMULATED_WIRE = EMULATED + ".wire";
    private static final String EMULATED_CODEC = EMULATED + ".wire.codec..";
    private static final String EMULATED_VERBS = EMULATED + ".verbs..";
    private static final String EMULATED_ENGINE = EMULATED + ".engine..";

    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("org.verbs4j");
    }

    @Test
    @DisplayName("the import holds the built classes, so no rule can pass on an empty set")
    void importIsNotEmpty() {
        assertTrue(classes.size() >= MINIMUM_IMPORTED_CLASSES, "only " + classes.size()
                + " classes were imported; the rules below would pass vacuously. Is the module class path right?");
        assertTrue(classes.contain(VerbsProvider.class), "org.verbs4j.spi was not imported");
        assertTrue(classes.contain(Context.class), "org.verbs4j was not imported");
        Path root = Path.of(System.getProperty("verbs4j.root", ".."));
        MODULE_PACKAGES.forEach((folder, pkg) -> {
            if (hasSources(root.resolve(folder))) {
                assertTrue(classes.stream().anyMatch(c -> c.getPackageName().startsWith(pkg)),
                        folder + " has sources but none of its classes (" + pkg + ") were imported");
            }
        });
    }

    private static boolean hasSources(Path module) {
        Path src = module.resolve("src/main/java");
        if (!Files.isDirectory(src)) {
            return false;
        }
        try (Stream<Path> files = Files.walk(src)) {
            return files.anyMatch(f -> f.toString().endsWith(".java") && !f.endsWith("module-info.java"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    @DisplayName("the API and SPI depend only on the JDK")
    void apiDependsOnlyOnJdk() {
        ArchRule rule = classes().that().resideInAPackage("org.verbs4j.spi..").or().resideInAPackage("org.verbs4j")
                .should().onlyDependOnClassesThat().resideInAnyPackage("java..", "org.verbs4j", "org.verbs4j.spi..")
                .as("verbs-spi depends on nothing but the JDK, so that any provider and any application can use it");
        rule.check(classes);
    }

    @Test
    @DisplayName("no provider depends on another provider")
    void providersAreIndependent() {
        ArchRule rule = slices().matching("org.verbs4j.provider.(*)..").should().notDependOnEachOther()
                .ignoreDependency(resideInAnyPackage("org.verbs4j.provider.ffm..", "org.verbs4j.provider.jnr.."),
                        resideInAPackage(NATIVE_COMMON))
                .as("providers depend on verbs4j-spi only (ffm and jnr also on the shared native module, which is "
                        + "not a provider), so each can be left out or replaced alone");
        rule.allowEmptyShould(true).check(classes);
    }

    @Test
    @DisplayName("only ffm and jnr use the shared native module")
    void onlyTheNativeProvidersUseNativeCommon() {
        ArchRule rule = noClasses().that().resideOutsideOfPackages(NATIVE_COMMON, "org.verbs4j.provider.ffm..",
                        "org.verbs4j.provider.jnr..")
                .should().dependOnClassesThat().resideInAPackage(NATIVE_COMMON)
                .as("provider-native-common holds what the two libibverbs bindings share; the API, the emulator "
                        + "and the TCK must not lean on it");
        rule.check(classes);
    }

    @Test
    @DisplayName("the shared native module depends on neither binding nor on a binding library")
    void nativeCommonIsBindingFree() {
        ArchRule rule = noClasses().that().resideInAPackage(NATIVE_COMMON)
                .should().dependOnClassesThat().resideInAnyPackage("org.verbs4j.provider.ffm..",
                        "org.verbs4j.provider.jnr..", "org.verbs4j.provider.emulated..", "jnr..", "com.kenai..")
                .orShould().dependOnClassesThat().haveNameMatching("java\\.lang\\.foreign\\.(?!MemorySegment$).*")
                .as("the layout description and the capability probe are binding-neutral: FFM layouts and "
                        + "VarHandles are built in provider-ffm, JNR calls are made in provider-jnr, each behind "
                        + "IbverbsDeviceFacts or from the description's offsets");
        rule.check(classes);
    }

    @Test
    @DisplayName("the native object model lives in the shared native module, not in ffm or jnr")
    void nativeObjectModelIsShared() {
        ArchRule rule = noClasses().that().resideInAnyPackage("org.verbs4j.provider.ffm..", "org.verbs4j.provider.jnr..")
                .and().areNotInterfaces()
                .should().implement(MemoryRegion.class)
                .orShould().implement(MemoryWindow.class)
                .orShould().implement(AddressHandle.class)
                .orShould().implement(ThreadDomain.class)
                .orShould().implement(CompletionChannel.class)
                .orShould().implement(ProtectionDomain.class)
                .orShould().implement(CompletionQueue.class)
                .orShould().implement(QueuePair.class)
                .orShould().implement(SharedReceiveQueue.class)
                .orShould().implement(WrSession.class)
                .orShould().implement(Context.class)
                .orShould().implement(Device.class)
                .as("ffm and jnr share one object model over IbverbsBinding (provider-native-common's Native* "
                        + "classes, NativeContext and NativeDevice included); a binding implements the calls, never "
                        + "the object. A provider keeps only its binding (the downcalls, opening and closing a "
                        + "device among them) and its ServiceLoader class, which lists the devices and makes a "
                        + "NativeDevice with its binding for each");
        rule.check(classes);
    }

    @Test
    @DisplayName("only the libibverbs providers use verbs-spi's internal package")
    void onlyTheNativeProvidersUseSpiInternal() {
        ArchRule rule = noClasses().that().resideOutsideOfPackages("org.verbs4j.spi..", NATIVE_COMMON,
                        "org.verbs4j.provider.ffm..", "org.verbs4j.provider.jnr..")
                .should().dependOnClassesThat().resideInAPackage("org.verbs4j.spi.support.internal..")
                .as("org.verbs4j.spi.support.internal (CmBinding and the Bound* rdma_cm object model) is exported to "
                        + "provider-native-common, ffm and jnr only (module-info's qualified export, bnd's mandatory "
                        + "attribute); vendors build on org.verbs4j.spi.support");
        rule.check(classes);
    }

    @Test
    @DisplayName("providers and the TCK do not depend on the tools")
    void nothingDependsOnTools() {
        ArchRule rule = noClasses().that().resideOutsideOfPackage("org.verbs4j.tools..")
                .should().dependOnClassesThat().resideInAPackage("org.verbs4j.tools..")
                .as("the verbs4j command sits on top; libraries never reach up into it");
        rule.check(classes);
    }

    @Test
    @DisplayName("provider classes never live in org.verbs4j or org.verbs4j.spi")
    void noImplementationsInApiPackages() {
        ArchRule rule = noClasses().that().resideInAnyPackage("org.verbs4j", "org.verbs4j.spi")
                .and().areNotInterfaces()
                .should().implement(VerbsProvider.class)
                .orShould().implement(VerbsObject.class)
                .orShould().implement(Device.class)
                .orShould().implement(WrSession.class)
                .as("the API packages define the contract; implementations belong to provider modules");
        rule.check(classes);
    }

    @Test
    @DisplayName("every provider's WR session extends the shared WR-batch state machine")
    void wrSessionsExtendTheSharedStateMachine() {
        ArchRule rule = classes().that().resideInAPackage("org.verbs4j.provider..").and().implement(WrSession.class)
                .should().beAssignableTo(AbstractWrSession.class)
                .as("the rules of ibv_wr_post(3) live once, in org.verbs4j.spi.support.AbstractWrSession; "
                        + "a provider's session only binds them");
        rule.check(classes);
    }

    @Test
    @DisplayName("no provider's WR session raises a WR-batch error itself")
    void onlyTheSharedLayerFailsABatch() {
        ArchRule rule = noClasses().that().resideInAPackage("org.verbs4j.provider..")
                .and().areAssignableTo(AbstractWrSession.class)
                .should().callConstructor(VerbsException.class, String.class, int.class, String.class)
                .orShould().callConstructor(IllegalStateException.class, String.class)
                .as("a provider reports a rule of its own through AbstractWrSession.fail(errno, why), so every "
                        + "batch fails the same way on every provider");
        rule.check(classes);
    }

    @Test
    @DisplayName("every provider's verbs object extends the shared lifecycle base")
    void verbsObjectsExtendTheSharedLifecycle() {
        ArchRule rule = classes().that().resideInAPackage("org.verbs4j.provider..").and().areNotInterfaces()
                .and().implement(VerbsObject.class)
                .should().beAssignableTo(AbstractVerbsObject.class)
                .as("close from any thread, EBUSY while children live, the context closing its objects and "
                        + "IllegalStateException after close() live once, in org.verbs4j.spi.support."
                        + "AbstractVerbsObject; a provider's object only binds its destroy verb");
        rule.check(classes);
    }

    @Test
    @DisplayName("no provider's verbs object keeps a closed flag or a reference count of its own")
    void verbsObjectsKeepNoLifecycleStateOfTheirOwn() {
        ArchRule rule = noFields().that().areDeclaredInClassesThat().resideInAPackage("org.verbs4j.provider..")
                .and().areDeclaredInClassesThat().areAssignableTo(AbstractVerbsObject.class)
                .should().haveNameMatching("(?i).*(closed|destroyed|dependents|users|refcount).*")
                .orShould().haveRawType(AtomicInteger.class)
                .as("the closed state and the count of dependent objects belong to AbstractVerbsObject "
                        + "(markClosed, dependOn, dropDependency); a second copy in a provider drifts from it");
        rule.check(classes);
    }

    @Test
    @DisplayName("each of the emulated provider's packages holds classes, so the rules below cannot pass on an empty one")
    void emulatedPackagesAreImported() {
        for (String pkg : new String[] {EMULATED, EMULATED_CM, EMULATED_WIRE, EMULATED_CODEC, EMULATED_VERBS,
                EMULATED_ENGINE}) {
            long n = classes.stream().filter(resideInAPackage(pkg)).filter(c -> !c.getSimpleName().equals("package-info"))
                    .count();
            assertTrue(n >= 1, pkg + " has no classes in the import: was the package renamed without the rules?");
        }
        assertTrue(classes.stream().filter(resideInAPackage(EMULATED + "..")).count() >= 50,
                "fewer than 50 classes of provider-emulated were imported");
    }

    @Test
    @DisplayName("the emulated provider's packages depend on each other in one direction only")
    void emulatedPackagesAreLayered() {
        ArchRule rule = layeredArchitecture().consideringOnlyDependenciesInLayers()
                .layer("provider").definedBy(EMULATED)
                .layer("connection manager").definedBy(EMULATED_CM)
                .layer("wire transport").definedBy(EMULATED_WIRE)
                .layer("wire codec").definedBy(EMULATED_CODEC)
                .layer("verbs objects").definedBy(EMULATED_VERBS)
                .layer("engine").definedBy(EMULATED_ENGINE)
                .whereLayer("provider").mayNotBeAccessedByAnyLayer()
                .whereLayer("connection manager").mayOnlyBeAccessedByLayers("provider")
                .whereLayer("wire transport").mayOnlyBeAccessedByLayers("connection manager")
                .whereLayer("wire codec").mayOnlyBeAccessedByLayers("connection manager", "wire transport")
                .whereLayer("verbs objects").mayOnlyBeAccessedByLayers("provider", "connection manager",
                        "wire transport")
                .whereLayer("engine").mayOnlyBeAccessedByLayers("verbs objects", "wire transport")
                .as("provider-emulated is built by concern, top down: the provider, the connection manager (which "
                        + "assembles the devices), the wire transport over its codec, the verbs objects, the engine. "
                        + "A lower package reports up only through an interface it owns (the engine's EngineQp, "
                        + "CompletionSink and Transport; the verbs objects' NetworkLink; the wire's GsiAgent), so "
                        + "each can be read, tested and changed without the ones above it");
        rule.check(classes);
    }

    @Test
    @DisplayName("the emulated engine depends on the API and itself only")
    void emulatedEngineIsSelfContained() {
        ArchRule rule = classes().that().resideInAPackage(EMULATED_ENGINE)
                .should().onlyDependOnClassesThat().resideInAnyPackage("java..", "org.verbs4j", "org.verbs4j.spi.support",
                        EMULATED_ENGINE)
                .as("the engine (rxe's requester, responder and completer) is called by the verbs objects and the "
                        + "wire transport, and answers through EngineQp, CompletionSink and Transport, interfaces of "
                        + "its own: the seam runs one way");
        rule.check(classes);
    }

    @Test
    @DisplayName("the wire codec depends on the JDK only")
    void emulatedWireCodecIsPure() {
        ArchRule rule = classes().that().resideInAPackage(EMULATED_CODEC)
                .should().onlyDependOnClassesThat().resideInAnyPackage("java..", EMULATED_CODEC)
                .as("the RoCE v2 packet formats are pure functions over buffers, tested on their own against the "
                        + "IBA tables and captured rxe packets");
        rule.check(classes);
    }

    @Test
    @DisplayName("the emulated provider's exported package holds the provider class alone")
    void emulatedExportsOnlyTheProvider() {
        ArchRule rule = classes().that().resideInAPackage(EMULATED).and().doNotHaveSimpleName("package-info")
                .should().haveSimpleName("EmulatedProvider")
                .as("module-info exports org.verbs4j.provider.emulated only so that tools and tests can build the "
                        + "provider; everything else lives in the unexported packages by concern");
        rule.check(classes);
    }

    @Test
    @DisplayName("there are no package cycles")
    void noPackageCycles() {
        ArchRule rule = slices().matching("org.verbs4j.(**)").should().beFreeOfCycles()
                .as("package cycles make the modules impossible to split or reason about");
        rule.check(classes);
    }
}
