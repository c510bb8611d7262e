#include "models/spinnaker2/dram/sparse_memory.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace nmsim::spinnaker2 {

SparseMemory::SparseMemory(uint64_t size, uint64_t page_bytes) : m_size(size), m_page(page_bytes) {
    if (page_bytes == 0 || (page_bytes & (page_bytes - 1)) != 0)
        throw std::logic_error("sparse memory: page size must be a power of two");
    m_page_shift = 0;
    while ((uint64_t{1} << m_page_shift) != page_bytes) ++m_page_shift;
    m_pages.resize((size + page_bytes - 1) >> m_page_shift);
}

void SparseMemory::read(uint64_t addr, uint8_t* dst, uint64_t len) const {
    while (len > 0) {
        const uint64_t idx = addr >> m_page_shift, off = addr & (m_page - 1);
        const uint64_t n = std::min(len, m_page - off);
        if (m_pages[idx])
            std::memcpy(dst, m_pages[idx].get() + off, n);
        else
            std::memset(dst, 0, n);
        addr += n;
        dst += n;
        len -= n;
    }
}

void SparseMemory::write(uint64_t addr, const uint8_t* src, uint64_t len) {
    while (len > 0) {
        const uint64_t idx = addr >> m_page_shift, off = addr & (m_page - 1);
        const uint64_t n = std::min(len, m_page - off);
        auto& page = m_pages[idx];
        if (!page) {
            page.reset(new uint8_t[m_page]());  // value-initialised: unwritten bytes read as zero
            ++m_allocated_pages;
        }
        std::memcpy(page.get() + off, src, n);
        addr += n;
        src += n;
        len -= n;
    }
}

void SparseMemory::clear() {
    for (auto& p : m_pages) p.reset();
    m_allocated_pages = 0;
}

}  // namespace nmsim::spinnaker2
