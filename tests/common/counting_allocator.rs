// A global allocator that counts the allocations of each thread, shared through `include!`
// by the tests that assert how much an evaluation allocates (`no_allocation`: nothing;
// `split_sweep`: one tape). Not a module of `common`: a test binary that includes it gets
// this allocator, and only those should.

/// Counts, then hands every request to the system allocator.
struct Counting;

thread_local! {
    // Per thread, so tests running in parallel do not count each other's allocations.
    static ALLOCATIONS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

unsafe impl std::alloc::GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        unsafe { std::alloc::System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// How many allocations this thread made during `f`.
fn allocations_during(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.with(std::cell::Cell::get);
    f();
    ALLOCATIONS.with(std::cell::Cell::get) - before
}
