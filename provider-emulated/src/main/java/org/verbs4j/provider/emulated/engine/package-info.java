/**
 * The emulator's engine, as rxe names its parts: the requester ({@code rxe_req.c}), the responder
 * ({@code rxe_resp.c}) and the completer ({@code rxe_comp.c}), with the send and receive queues, the key table
 * ({@code rxe_mr.c}'s lookups), the QP state machine and the ordered copy. It depends on the API alone: the verbs
 * objects call it, and it reports back only through the interfaces it owns ({@code EngineQp},
 * {@code CompletionSink}, {@code Transport}).
 */
package org.verbs4j.provider.emulated.engine;
