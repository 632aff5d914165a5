// A downstream program: round-trips a Control through the installed library.
#include <coupler/coupler.hpp>

int main() {
  const coupler::ControlMessage sent =
      coupler::ControlMessage::builder().object("robot1").values({0.5, -0.5}).event("gripper", true);
  const auto received = coupler::decode_as<coupler::ControlMessage>(coupler::encode(sent));
  return received.objects.at("robot1").values == sent.objects.at("robot1").values ? 0 : 1;
}
