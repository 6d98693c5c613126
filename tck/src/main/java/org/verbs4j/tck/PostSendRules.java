package org.verbs4j.tck;

public abstract class PostSendRules extends TckArea {
    protected PostSendRules(VerbsCompatibilityKit kit) {
        super(kit);
    }
}
