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
 *     <tr><td>{@link CoreVerbs}</td><td>the functions libibverbs exports ({@code ibv_alloc_pd},
 *       {@code ibv_modify_qp}, ...)</td><td>control</td><td>{@code FfmCoreVerbs}</td><td>{@code JnrCoreVerbs}</td></tr>
 *     <tr><td>{@link ContextOps}</td><td>the ops of {@code ibv_context} and {@code verbs_context}, by pointer</td>
 *       <td>{@code post_send}, {@code post_recv}, {@code poll_cq}: data; the rest: control</td>
 *       <td>{@code FfmIbverbsBinding} (data), {@code FfmContextOps} (control)</td>
 *       <td>{@code JnrIbverbsBinding} (data), {@code JnrContextOps} (control)</td></tr>
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
 * <h2>Next: control-path verbs declared once (design, not built)</h2>
 *
 * <p>Today a control-path verb is still written three times in the binding: its declaration here, and its ffm and
 * its jnr implementation. The plan to make it once:
 * <ol>
 *   <li><b>One declaration.</b> An interface here, one method per C function or op, parameters by C type
 *     (pointer and {@code size_t} as {@code long}, {@code int}/{@code uint32_t} as {@code int}, {@code uint8_t}
 *     as {@code byte}), each annotated with its C signature and its errno convention:
 *     <pre>{@code
 * @CFunction(value = "int ibv_dealloc_pd(struct ibv_pd *pd)", errno = Convention.RETURNED)
 * int ibv_dealloc_pd(long pd);
 * @CFunction(value = "struct ibv_pd *ibv_alloc_pd(struct ibv_context *context)", errno = Convention.NULL_SETS)
 * long ibv_alloc_pd(long context);
 * @COp(struct = "verbs_context", field = "advise_mr", errno = Convention.RETURNED)
 * int advise_mr(long fn, long pd, int advice, int flags, long sgList, int numSge);
 * }</pre></li>
 *   <li><b>jnr binds it as it is:</b> JNR-FFI builds a library from an interface
 *     ({@code LibraryLoader.create(...).option(LibraryOption.SaveError, ...)}), the way {@code provider-jnr}'s
 *     {@code Ibverbs} is bound today; an op (first parameter the function pointer) goes through one generic jffi
 *     {@code CallContext} built from the method's parameter types.</li>
 *   <li><b>ffm binds it with a small loader:</b> one downcall handle per method, its {@code FunctionDescriptor}
 *     from the parameter types, {@code captureCallState("errno")} on every one; an op is an address-less handle.
 *     The implementation is a {@code java.lang.reflect.Proxy} (boxing costs far less than the system call behind a
 *     control verb) or a hidden class spun with {@code java.lang.classfile} holding one {@code static final}
 *     handle per method.</li>
 *   <li><b>The contract applied once:</b> the object model calls the declared function and hands the raw result
 *     with the declared convention to {@link NativeErrors} ({@code RETURNED} to {@link NativeErrors#ofInt},
 *     {@code NULL_SETS} to {@link NativeErrors#ofAddress}), reading {@code errno} from the binding's capture; no
 *     per-binding code is written for a new control verb.</li>
 *   <li><b>Checked at build time:</b> a test compiles each {@code @CFunction} signature against the installed
 *     {@code verbs.h} with gcc, as {@code StructLayoutTest} checks the layouts, so a wrong Java parameter type
 *     fails the build.</li>
 * </ol>
 * A control verb without new structs then touches: the API interface ({@code verbs-spi}), one declaration line
 * here, the {@code Native*} object that calls it, the emulated object, and the TCK rule, plus {@code emuverbs}'
 * forwarding C when the verb is not already forwarded: five or six main files. The data path stays outside the
 * declaration, written by hand in each binding.
 */
package org.verbs4j.provider.nativecommon.internal;
