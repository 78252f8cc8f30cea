// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title TestFundToken: a tokenized fund's share token, for tests
/// @notice An ERC-20 whose decimals are set at deployment (BUIDL, USTB and
/// USYC use 6, OUSG and USDY 18) and whose supply the owner mints and
/// burns, as a fund's transfer agent does on subscriptions and
/// redemptions.
contract TestFundToken {
    string public name;
    string public symbol;
    uint8 public immutable decimals;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    address public immutable owner;

    event Transfer(address indexed from, address indexed to, uint256 value);

    error Unauthorized(address caller);

    constructor(string memory name_, string memory symbol_, uint8 decimals_) {
        name = name_;
        symbol = symbol_;
        decimals = decimals_;
        owner = msg.sender;
    }

    function mint(address to, uint256 value) external {
        if (msg.sender != owner) revert Unauthorized(msg.sender);
        totalSupply += value;
        balanceOf[to] += value;
        emit Transfer(address(0), to, value);
    }

    function burn(address from, uint256 value) external {
        if (msg.sender != owner) revert Unauthorized(msg.sender);
        require(balanceOf[from] >= value, "TestFundToken: burn amount exceeds balance");
        unchecked {
            balanceOf[from] -= value;
            totalSupply -= value;
        }
        emit Transfer(from, address(0), value);
    }

    function transfer(address to, uint256 value) external returns (bool) {
        require(balanceOf[msg.sender] >= value, "TestFundToken: transfer amount exceeds balance");
        unchecked {
            balanceOf[msg.sender] -= value;
        }
        balanceOf[to] += value;
        emit Transfer(msg.sender, to, value);
        return true;
    }
}
