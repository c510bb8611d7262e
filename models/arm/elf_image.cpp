#include "models/arm/elf_image.h"

#include <elf.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace nmsim::arm {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& why) {
    throw std::runtime_error(path + ": not a loadable Cortex-M ELF image: " + why);
}

template <class T>
T read_at(const std::vector<uint8_t>& f, uint64_t off, const std::string& path, const char* what) {
    if (off > f.size() || sizeof(T) > f.size() - off)
        fail(path, std::string("truncated file (") + what + " beyond end of file)");
    T v;
    std::memcpy(&v, f.data() + off, sizeof(T));
    return v;
}

}  // namespace

ElfImage ElfImage::load(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(path + ": cannot open firmware image");
    std::vector<uint8_t> f((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());

    const auto eh = read_at<Elf32_Ehdr>(f, 0, path, "ELF header");
    if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) fail(path, "bad ELF magic");
    if (eh.e_ident[EI_CLASS] != ELFCLASS32) fail(path, "not a 32-bit ELF");
    if (eh.e_ident[EI_DATA] != ELFDATA2LSB) fail(path, "not little-endian");
    if (eh.e_machine != EM_ARM) fail(path, "machine is not ARM");
    if (eh.e_type != ET_EXEC) fail(path, "not an executable (ET_EXEC)");
    if (eh.e_phentsize != sizeof(Elf32_Phdr) && eh.e_phnum) fail(path, "unexpected program header size");

    ElfImage img;
    img.m_path = path;
    img.m_entry = eh.e_entry;
    for (unsigned i = 0; i < eh.e_phnum; ++i) {
        const auto ph = read_at<Elf32_Phdr>(f, eh.e_phoff + uint64_t(i) * sizeof(Elf32_Phdr), path,
                                            "program header");
        if (ph.p_type != PT_LOAD || ph.p_memsz == 0) continue;
        if (ph.p_filesz > ph.p_memsz) fail(path, "segment file size exceeds memory size");
        if (uint64_t(ph.p_offset) + ph.p_filesz > f.size()) fail(path, "segment beyond end of file");
        ElfSegment s;
        s.addr = ph.p_paddr;
        s.memsz = ph.p_memsz;
        s.bytes.assign(f.begin() + ph.p_offset, f.begin() + ph.p_offset + ph.p_filesz);
        img.m_segments.push_back(std::move(s));
    }
    if (img.m_segments.empty()) fail(path, "no loadable segments");

    // Symbols (optional: stripped images load fine).
    if (eh.e_shoff && eh.e_shentsize == sizeof(Elf32_Shdr)) {
        for (unsigned i = 0; i < eh.e_shnum; ++i) {
            const auto sh = read_at<Elf32_Shdr>(f, eh.e_shoff + uint64_t(i) * sizeof(Elf32_Shdr),
                                                path, "section header");
            if (sh.sh_type != SHT_SYMTAB || sh.sh_entsize != sizeof(Elf32_Sym)) continue;
            const auto strh = read_at<Elf32_Shdr>(
                f, eh.e_shoff + uint64_t(sh.sh_link) * sizeof(Elf32_Shdr), path, "string table header");
            for (uint32_t off = 0; off + sizeof(Elf32_Sym) <= sh.sh_size; off += sizeof(Elf32_Sym)) {
                const auto sym = read_at<Elf32_Sym>(f, uint64_t(sh.sh_offset) + off, path, "symbol");
                const unsigned type = ELF32_ST_TYPE(sym.st_info);
                if ((type != STT_FUNC && type != STT_OBJECT && type != STT_NOTYPE) || sym.st_name == 0)
                    continue;
                const uint64_t name_off = uint64_t(strh.sh_offset) + sym.st_name;
                if (name_off >= f.size()) continue;
                const char* name = reinterpret_cast<const char*>(f.data() + name_off);
                const size_t max = f.size() - name_off;
                img.m_symbols.push_back(ElfSymbol{std::string(name, strnlen(name, max)),
                                                  type == STT_FUNC ? sym.st_value & ~1u : sym.st_value,
                                                  sym.st_size, type == STT_FUNC});
            }
        }
        std::sort(img.m_symbols.begin(), img.m_symbols.end(),
                  [](const ElfSymbol& a, const ElfSymbol& b) { return a.addr < b.addr; });
    }
    return img;
}

bool ElfImage::find_symbol(const std::string& name, uint32_t& addr) const {
    for (const auto& s : m_symbols) {
        if (s.name == name) {
            addr = s.addr;
            return true;
        }
    }
    return false;
}

std::string ElfImage::symbolize(uint32_t addr) const {
    auto it = std::upper_bound(m_symbols.begin(), m_symbols.end(), addr,
                               [](uint32_t a, const ElfSymbol& s) { return a < s.addr; });
    while (it != m_symbols.begin()) {
        --it;
        if (!it->is_func && it->size == 0) continue;  // section markers such as _end
        if (addr < it->addr + std::max<uint32_t>(it->size, 1)) {
            char b[32];
            std::snprintf(b, sizeof b, "+0x%x", addr - it->addr);
            return it->name + b;
        }
        if (it->size != 0) break;
    }
    return "";
}

uint32_t ElfImage::end_of_image() const {
    uint32_t end = 0;
    for (const auto& s : m_segments) end = std::max(end, s.addr + s.memsz);
    return end;
}

}  // namespace nmsim::arm
