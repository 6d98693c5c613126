/**
 * The native object model that {@code provider-ffm} and {@code provider-jnr} share ({@code Native*}), the one
 * description of the libibverbs and librdmacm struct layouts ({@code *Structs}), and the binding interfaces the two
 * providers implement. Exported only to them.
 *
 * <h2>The binding, by library and by object (issue 28)</h2>
 *
 * <table class="striped">
 *   <caption>What binds what</caption>
 *   <thead><tr><th>Interface</th><th>Binds</th><th>Path</th><th>ffm</th><th>jnr</th></tr></thead>
 *   <tbody>
 *     <tr><td>{@link CoreVerbs} over {@link LibIbverbs}</td><td>the functions libibverbs exports
 *       ({@code ibv_alloc_pd}, {@code ibv_modify_qp}, ...), declared once</td><td>control</td>
 *       <td>{@code FfmDeclaredLibrary}</td><td>{@code JnrDeclaredLibrary}</td></tr>
 *     <tr><td>{@link ContextOps} and {@link LibIbverbsOps}</td><td>the ops of {@code ibv_context} and
 *       {@code verbs_context}, by pointer</td>
 *       <td>{@link ContextOps}: {@code post_send}, {@code post_recv}, {@code poll_cq}, data; {@link LibIbverbsOps}:
 *       the rest, control, declared once and called directly</td>
 *       <td>{@code FfmIbverbsBinding} (data), {@code FfmDeclaredLibrary} (control)</td>
 *       <td>{@code JnrIbverbsBinding} (data), {@code JnrDeclaredLibrary} (control)</td></tr>
 *     <tr><td>{@link QpExOps}</td><td>the {@code ibv_qp_ex} WR session ({@code wr_start}, the {@code wr_*}
 *       builders and setters, {@code wr_complete})</td><td>data</td><td>{@code FfmIbverbsBinding}</td>
 *       <td>{@code JnrIbverbsBinding}</td></tr>
 *     <tr><td>{@link CqExOps}</td><td>the {@code ibv_cq_ex} poll ops</td><td>data</td>
 *       <td>{@code FfmIbverbsBinding}</td><td>{@code JnrIbverbsBinding}</td></tr>
 *     <tr><td>{@link CLibrary}</td><td>{@code calloc}, {@code free}, {@code poll}</td><td>control</td>
 *       <td>{@code FfmCLibrary}</td><td>{@code JnrCLibrary}</td></tr>
 *     <tr><td>{@link NativeMemoryAccess}</td><td>fields by address (no call)</td><td>both</td>
 *       <td>{@code FfmIbverbsBinding}</td><td>{@code JnrIbverbsBinding}</td></tr>
 *     <tr><td>{@link LibRdmaCm}</td><td>librdmacm</td><td>control</td><td>{@code FfmRdmaCm}</td>
 *       <td>{@code JnrRdmaCm}</td></tr>
 *   </tbody>
 * </table>
 *
 * <p>{@link IbverbsBinding} is all of them but librdmacm, so the object model holds one binding and its calls stay
 * monomorphic. Each provider implements the control path as interfaces with default methods, one per library or
 * object, that its one binding class takes in; the data path is written by hand in that class, one downcall each
 * and no allocation.
 *
 * <h2>One errno contract</h2>
 *
 * <p>Every call answers its result or −errno; {@link NativeErrors} folds libibverbs' three failure shapes (the errno
 * returned, −1 with {@code errno} set, −errno) into it, reports a failure without an errno as {@code EIO} in both
 * bindings, and is the one place that turns −errno into the {@code VerbsException} naming the verb
 * ({@link NativeErrors#check}). The data path answers the op's raw result so that success costs one compare; its
 * callers hand a failure to {@link NativeErrors#ofOp} or {@link NativeErrors#ofPoll}.
 *
 * <h2>Control-path verbs declared once</h2>
 *
 * <p>The functions libibverbs exports are declared once, in {@link LibIbverbs}: one method per C function, named as
 * the symbol, its parameters the C ones by width (pointer and {@code size_t} as {@code long}, {@code int},
 * {@code uint32_t}, {@code uint8_t} and enums as {@code int}), annotated ({@link CFunction}) with its C declaration
 * and its {@link ErrnoConvention}:
 * <pre>{@code
 * @CFunction(value = "int ibv_dealloc_pd(struct ibv_pd *pd)", errno = RETURNED)
 * int ibv_dealloc_pd(long pd);
 * }</pre>
 * {@code provider-ffm}'s {@code FfmDeclaredLibrary} (a downcall handle per method, capturing {@code errno}) and
 * {@code provider-jnr}'s {@code JnrDeclaredLibrary} (a jffi call context per method, saving {@code errno}) bind it
 * from the declarations alone, and {@link DeclaredLibrary} applies the convention to every call, so each method
 * answers in the contract. {@link CoreVerbs} is written once over it, here. {@code LibIbverbsDeclarationTest}
 * checks every declaration against itself (name, widths, a convention the result can carry) and, with gcc, every C
 * signature against the installed {@code verbs.h}. {@link DeclaredLibrary} implements the declaration with a
 * {@link java.lang.reflect.Proxy}: boxing costs far less than the system call behind a control verb, and the data
 * path never goes this way.
 *
 * <p>A control verb that libibverbs exports and that needs no new struct therefore touches: the API interface
 * ({@code verbs-spi}), one declaration in {@link LibIbverbs}, its {@link CoreVerbs} method, the {@code Native*}
 * object that calls it, the emulated object and the TCK rule: six main files in four
 * modules, none of them in {@code provider-ffm} or {@code provider-jnr}; {@code emuverbs}' forwarding C besides, when
 * it does not forward the function yet.
 *
 * <p>The control-path <em>ops</em> (function pointers of {@code ibv_context.ops} and {@code verbs_context}:
 * {@code alloc_mw}, {@code create_qp_ex}, {@code query_device_ex}, ...) are declared the same way, in
 * {@link LibIbverbsOps}: the method is named as the struct member, takes the op's address first, and is annotated
 * ({@link COp}) with the struct and the member's C declaration:
 * <pre>{@code
 * @COp(struct = "verbs_context", value = "int (*dealloc_td)(struct ibv_td *td)", errno = RETURNED)
 * int dealloc_td(long fn, long td);
 * }</pre>
 * The same two classes bind them from the declarations alone, through FFM's address-less downcall handles and jffi's
 * call contexts (the address per call); {@link DeclaredLibrary} applies the convention and answers
 * {@code -EOPNOTSUPP} for address 0, as {@code verbs.h}'s inline wrappers do for a missing op, and
 * {@link NativeContextSupport#op} finds the address from the declaration alone (its {@link COp#struct} and name,
 * through {@code DeclaredOps}), checking {@code verbs_context.sz} for an extended op. The object model calls the
 * declaration directly: {@code binding.libibverbsOps().dealloc_td(context.op("dealloc_td"), td)}, with no forwarder
 * and no offset constant. {@code LibIbverbsDeclarationTest} checks each op against itself and, with gcc, its C
 * declaration against the type of the member in the installed {@code verbs.h}. A new op verb is therefore one
 * method in {@link LibIbverbsOps} and its caller in the object model, as a new exported verb is one method in
 * {@link LibIbverbs} and its caller. The data path ({@code post_send}, {@code post_recv},
 * {@code poll_cq}, the {@code ibv_qp_ex} builders, the {@code ibv_cq_ex} poll ops) stays outside the declaration,
 * written by hand in each binding ({@code InlineOps}, {@code InlineVerbs}).
 */
package org.verbs4j.provider.nativecommon.internal;
