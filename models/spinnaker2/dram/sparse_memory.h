// A large byte-addressable memory whose host storage is allocated in pages on first write, so
// that a 2 GiB DRAM costs only what a run writes into it. Reads of never-written pages return
// zeros and allocate nothing. Plain C++ (no SystemC): the DRAM controller puts timing around it.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace nmsim::spinnaker2 {

class SparseMemory {
public:
    // `size`: the address space in bytes; `page_bytes`: the allocation granule (a power of two).
    SparseMemory(uint64_t size, uint64_t page_bytes);

    uint64_t size() const { return m_size; }
    uint64_t page_bytes() const { return m_page; }
    bool contains(uint64_t addr, uint64_t len) const {
        return addr <= m_size && len <= m_size - addr;
    }

    // [addr, addr + len) must lie inside the memory (callers check with contains()).
    void read(uint64_t addr, uint8_t* dst, uint64_t len) const;
    void write(uint64_t addr, const uint8_t* src, uint64_t len);

    // Host bytes held for data (allocated pages x page size); the page table is not counted.
    uint64_t allocated_bytes() const { return m_allocated_pages * m_page; }
    uint64_t allocated_pages() const { return m_allocated_pages; }

    // Releases every page: the whole memory reads as zeros again.
    void clear();

private:
    uint64_t m_size;
    uint64_t m_page;
    unsigned m_page_shift;
    std::vector<std::unique_ptr<uint8_t[]>> m_pages;
    uint64_t m_allocated_pages = 0;
};

}  // namespace nmsim::spinnaker2
