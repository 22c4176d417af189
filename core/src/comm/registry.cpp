// From collective kind to its model, and the names used in JSON and on the command line.
#include <string>

#include "comm/collective.hpp"
#include "tilecast/enum_names.hpp"
#include "tilecast/error.hpp"

namespace tilecast {
namespace comm {

const CollectiveModel& collective_model(Collective kind) {
  switch (kind) {
    case Collective::kAllReduce: return all_reduce_model();
    case Collective::kReduceScatter: return reduce_scatter_model();
    case Collective::kAllGather: return all_gather_model();
    case Collective::kSendRecv: return send_recv_model();
    case Collective::kAllToAll: return all_to_all_model();
  }
  return all_reduce_model();
}

}  // namespace comm

namespace {

constexpr EnumName<Collective> kCollectives[] = {{"all_reduce", Collective::kAllReduce},
                                                 {"reduce_scatter", Collective::kReduceScatter},
                                                 {"all_gather", Collective::kAllGather},
                                                 {"send_recv", Collective::kSendRecv},
                                                 {"all_to_all", Collective::kAllToAll}};
constexpr EnumName<CommAlgorithm> kAlgorithms[] = {{"auto", CommAlgorithm::kAuto},
                                                   {"ring", CommAlgorithm::kRing},
                                                   {"tree", CommAlgorithm::kTree},
                                                   {"nvls", CommAlgorithm::kNvls}};
constexpr EnumName<LinkClass> kLinkClasses[] = {{"nvswitch", LinkClass::kNvswitch},
                                                {"nvlink-bridge", LinkClass::kNvlinkBridge},
                                                {"pcie", LinkClass::kPcie},
                                                {"infinity-fabric", LinkClass::kInfinityFabric},
                                                {"network", LinkClass::kNetwork}};
constexpr EnumName<CommFamily> kFamilies[] = {{"collective", CommFamily::kCollective},
                                              {"p2p", CommFamily::kP2p}};
constexpr EnumName<CommProtocol> kProtocols[] = {
    {"simple", CommProtocol::kSimple}, {"ll", CommProtocol::kLl}, {"ll128", CommProtocol::kLl128}};

}  // namespace

EnumNames<Collective> collective_names() { return kCollectives; }
EnumNames<CommAlgorithm> comm_algorithm_names() { return kAlgorithms; }
EnumNames<LinkClass> link_class_names() { return kLinkClasses; }
EnumNames<CommFamily> comm_family_names() { return kFamilies; }
EnumNames<CommProtocol> comm_protocol_names() { return kProtocols; }

std::string_view collective_name(Collective c) { return enum_name(collective_names(), c); }

Collective parse_collective(std::string_view name) {
  return parse_enum(collective_names(), name, "a collective");
}

std::string_view comm_algorithm_name(CommAlgorithm a) {
  return enum_name(comm_algorithm_names(), a);
}

CommAlgorithm parse_comm_algorithm(std::string_view name) {
  return parse_enum(comm_algorithm_names(), name, "an algorithm");
}

std::string_view link_class_name(LinkClass c) { return enum_name(link_class_names(), c); }

std::string_view comm_family_name(CommFamily f) { return enum_name(comm_family_names(), f); }

std::string_view comm_protocol_name(CommProtocol p) { return enum_name(comm_protocol_names(), p); }

}  // namespace tilecast
